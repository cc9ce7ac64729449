/* teams_distribute_simd_O0.c - target teams distribute simd with a
 * reduction on a global pointer section.
 * cflags: -O0 */
#include <stdlib.h>
#include "check.h"

int *vals;

int main(void) {
  int n = 2048;
  vals = malloc(n * sizeof *vals);
  for (int i = 0; i < n; i++) vals[i] = i % 10;
  int *v = vals;
  long s = 0;
#pragma omp target teams distribute simd map(to : v[0:n]) reduction(+ : s)
  for (int i = 0; i < n; i++) s += v[i];
  CHECK_EQ(s, 9208);
  free(vals);
  return check_finish();
}
