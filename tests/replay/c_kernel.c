/* A C kernel over heap arrays reached through global pointers. */
#include <stdio.h>
#include <stdlib.h>

static double *xs, *ys;

int main(void) {
  int n = 10000;
  xs = malloc(n * sizeof *xs);
  ys = malloc(n * sizeof *ys);
  for (int i = 0; i < n; i++) {
    xs[i] = i * 0.5;
    ys[i] = 1.0;
  }
  double *x = xs, *y = ys;
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += 2.0 * x[i];
  printf("c_kernel %.1f %.1f\n", y[0], y[n - 1]);
  free(xs);
  free(ys);
  return 0;
}
