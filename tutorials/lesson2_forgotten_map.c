/* lesson2_forgotten_map.c - the forgotten map: a heap pointer used on the
 * device without mapping what it points to. On a shared-memory CPU "device"
 * this silently works; on simdevice (another address space) it faults, and
 * the runtime says which kernel touched which address. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int fixed = argc > 1; /* run with any argument to get the corrected map */
  (void)argv;
  int n = 1000;
  double *v = malloc(n * sizeof(double));
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
  if (fixed) {
#pragma omp target map(tofrom : v[0:n])
    for (int i = 0; i < n; i++) v[i] *= 2;
  } else {
    /* Only the pointer value is passed; the 8000 bytes behind it are not. */
#pragma omp target
    for (int i = 0; i < n; i++) v[i] *= 2;
  }
  printf("v[10] = %g\n", v[10]);
  int ok = v[10] == 20.0;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  return !ok;
}
