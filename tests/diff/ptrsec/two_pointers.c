/* two_pointers.c - two heap arrays, one read, one written. */
#include <stdlib.h>
#include "check.h"

static void axpy(int n, float a, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}

int main(void) {
  int n = 4096;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (int i = 0; i < n; i++) { x[i] = (float)i; y[i] = 1.0f; }
  axpy(n, 2.0f, x, y);
  for (int i = 0; i < n; i++) CHECK(y[i] == 1.0f + 2.0f * i);
  free(x);
  free(y);
  return check_finish();
}
