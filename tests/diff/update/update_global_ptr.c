/* update_global_ptr.c - target update from of a global pointer's section
 * mapped by enter data; the kernel takes it from a function. */
#include <stdlib.h>
#include "check.h"

float *gf;

static void kernel(int n) {
  float *f = gf;
#pragma omp target map(f[0:n])
  for (int i = 0; i < n; i++) f[i] = i * 0.25f;
}

int main(void) {
  int n = 80;
  gf = calloc(n, sizeof *gf);
#pragma omp target enter data map(to : gf[0:n])
  kernel(n);
#pragma omp target update from(gf[0:n])
  for (int i = 0; i < n; i++) CHECK(gf[i] == i * 0.25f);
#pragma omp target exit data map(delete : gf[0:n])
  free(gf);
  return check_finish();
}
