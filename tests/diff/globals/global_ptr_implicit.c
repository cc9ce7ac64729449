/* global_ptr_implicit.c - a global pointer whose section is present from
 * enter data, used in a kernel without a map clause: the implicit
 * zero-length map of gp finds the section (OpenMP 5.0 2.19.7.1). */
#include <stdlib.h>
#include "check.h"

int *gp;

int main(void) {
  int n = 64;
  gp = malloc(n * sizeof *gp);
  for (int i = 0; i < n; i++) gp[i] = i;
#pragma omp target enter data map(to : gp[0:n])
#pragma omp target
  for (int i = 0; i < n; i++) gp[i] = gp[i] * 2;
#pragma omp target exit data map(from : gp[0:n])
  for (int i = 0; i < n; i++) CHECK_EQ(gp[i], 2 * i);
  free(gp);
  return check_finish();
}
