/* static_local.c - a function-local static array, mapped explicitly. */
#include "check.h"

static int bump(void) {
  static int hits[8];
#pragma omp target map(tofrom : hits)
  for (int i = 0; i < 8; i++) hits[i]++;
  return hits[3];
}

int main(void) {
  bump();
  bump();
  CHECK_EQ(bump(), 3);
  return check_finish();
}
