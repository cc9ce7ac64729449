/* always_to.c - map(always, to:) refreshes a present array. */
#include "check.h"

int main(void) {
  int a[8] = {0};
#pragma omp target data map(to : a)
  {
    for (int i = 0; i < 8; i++) a[i] = i + 1;
    int s = 0;
#pragma omp target map(always, to : a) map(tofrom : s)
    for (int i = 0; i < 8; i++) s += a[i];
    CHECK_EQ(s, 36);
  }
  return check_finish();
}
