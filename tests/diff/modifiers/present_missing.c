/* present_missing.c - map(present:) of data that is not present must fail
 * (OpenMP 5.1 2.21.7.1): every runtime stops the program.
 * cflags: -fopenmp-version=51
 * expect-exit: 1
 * expect-stderr: present */
#include "check.h"

int main(void) {
  int a[16] = {0};
#pragma omp target map(present, tofrom : a)
  a[0] = 1;
  printf("not reached: a[0]=%d\n", a[0]);
  return 3;
}
