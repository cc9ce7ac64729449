/* from_exit_refcount.c - exit data map(from:) copies only when the count
 * drops to zero (OpenMP 5.0). */
#include "check.h"

int main(void) {
  int a[4] = {0};
#pragma omp target enter data map(to : a)
#pragma omp target enter data map(to : a)
#pragma omp target
  a[0] = 9;
#pragma omp target exit data map(from : a)
  CHECK_EQ(a[0], 0);
#pragma omp target exit data map(from : a)
  CHECK_EQ(a[0], 9);
  return check_finish();
}
