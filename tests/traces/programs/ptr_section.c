// A heap section through a local pointer (PTR_AND_OBJ / ATTACH).
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 64;
  double *p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = i;
#pragma omp target map(tofrom : p[0:n])
  for (int i = 0; i < n; i++) p[i] *= 2;
  int ok = p[63] == 126;
  free(p);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
