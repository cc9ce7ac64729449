// A result array reached through a global pointer, released where `from`
// was meant: `target exit data map(release:)` drops the kernel's results
// and the host sums its own old zeros.
// stale-expect: released-unread g[0:n] 1
// cflags: -O2
#include <stdio.h>
#include <stdlib.h>

double *g;
int n = 4096;

static void compute(void) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    g[i] = 0.5 * i;
}

int main(void) {
  g = calloc((size_t)n, sizeof *g);
#pragma omp target enter data map(to: g[0:n])
  compute();
#pragma omp target exit data map(release: g[0:n])
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += g[i];
  printf("sum %.1f\n", sum);
  free(g);
  return 0;
}
