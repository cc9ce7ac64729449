/* 05-pointers-sections/broken_short_section.c - a section one element short.
 * info: 0x29
 * expect-exit: 1
 * expect: past the end|beyond|outside
 * v[0:n-1] copies n-1 elements, but the loop reads v[n-1] too: one element
 * past the end of the device copy. The fix: v[0:n]. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *v = malloc(n * sizeof *v);
  double sum = 0;
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = 1;
#pragma omp target map(to : v[0:n - 1]) map(tofrom : sum)
  for (int i = 0; i < n; i++) sum += v[i];
  printf("sum = %g (1000)\n", sum);
  printf("%s\n", sum == 1000 ? "PASS" : "FAIL");
  free(v);
  return sum != 1000;
}
