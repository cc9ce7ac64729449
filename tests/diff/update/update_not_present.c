/* update_not_present.c - target update of data that is not present does
 * nothing (OpenMP 5.0: no effect). */
#include "check.h"

int main(void) {
  int a[4] = {1, 2, 3, 4};
#pragma omp target update from(a)
#pragma omp target update to(a)
  CHECK_EQ(a[2], 3);
  return check_finish();
}
