/* present_missing.c - target enter data map(present, to:) of a heap section
 * that is not present must fail (OpenMP 5.1 2.21.7.1): every runtime stops
 * the program (see README.md: LLVM aborts, simtarget exits with 1).
 * cflags: -fopenmp-version=51
 * expect-exit: 1
 * expect-stderr: present */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 100;
  double *field = calloc(n, sizeof *field);
#pragma omp target enter data map(to : field[0:n / 2])
#pragma omp target enter data map(present, to : field[n / 2:n / 2])
  printf("not reached: the second half was not present\n");
  free(field);
  return 3;
}
