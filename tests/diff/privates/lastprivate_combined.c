/* lastprivate_combined.c - lastprivate on a combined construct. */
#include "check.h"

int main(void) {
  int last = -1;
#pragma omp target teams distribute parallel for lastprivate(last)
  for (int i = 0; i < 100; i++) last = i * 2;
  CHECK_EQ(last, 198);
  return check_finish();
}
