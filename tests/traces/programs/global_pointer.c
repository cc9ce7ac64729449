// A section through a global pointer.
#include <stdio.h>
#include <stdlib.h>
int *gp;
int main(void) {
  gp = calloc(16, sizeof *gp);
#pragma omp target map(tofrom : gp[0:16])
  for (int i = 0; i < 16; i++) gp[i] = i * i;
  int ok = gp[15] == 225;
  free(gp);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
