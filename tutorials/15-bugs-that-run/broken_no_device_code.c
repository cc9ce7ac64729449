/* 15-bugs-that-run/broken_no_device_code.c - program.c built without
 * -fopenmp-targets.
 * info: 0
 * build: host-only
 * run: simtarget-check
 * golden: no
 * expect-exit: 1
 * expect: ^sum = 499500 \(499500\)$
 * expect: ^\[1\] no-device-image
 * Compiled with -fopenmp alone, every target region is host code: the
 * result is right, nothing was offloaded and no mapping was ever checked
 * (a Makefile that lost its -fopenmp-targets flag). simtarget-check reads
 * the binary and says so. */
#include <stdio.h>
#include <stdlib.h>

double *data;

int main(void) {
  int n = 1000;
  data = malloc(n * sizeof *data);
  for (int i = 0; i < n; i++)
    data[i] = i;
  double sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : data[0:n])
  for (int i = 0; i < n; i++)
    sum += data[i];
  printf("sum = %g (499500)\n", sum);
  free(data);
  return sum != 499500;
}
