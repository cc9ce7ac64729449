/* 05-pointers-sections/broken_pointer_no_section.c - map(tofrom : v) with a
 * pointer v maps the pointer (8 bytes), not the data.
 * info: 0x29
 * expect-exit: 1
 * expect: not device memory|outside|host memory
 * The device gets a copy of the pointer variable, which still holds the
 * host address. The fix: map(tofrom : v[0:n]). */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *v = malloc(n * sizeof *v);
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target map(tofrom : v)
  for (int i = 0; i < n; i++) v[i] *= 2;
  printf("v[10] = %g\n", v[10]);
  int ok = v[10] == 20.0;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  return !ok;
}
