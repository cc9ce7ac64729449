/* global_ptr_two_funcs.c - a file-scope pointer mapped by `target data`
 * in one function and again, with the same section, by a `target` region
 * in another (the common "init, compute, finalize" layout).
 * expect: the kernel sees the device copy of data[0:N] and the host gets
 * the doubled values back at the end of `target data`. */
#include <stdio.h>
#include <stdlib.h>
#define N 1000
double *data;

static void compute(void) {
#pragma omp target map(tofrom : data[0:N])
  for (int i = 0; i < N; i++)
    data[i] *= 2;
}

int main(void) {
  data = malloc(N * sizeof *data);
  for (int i = 0; i < N; i++)
    data[i] = i;
#pragma omp target data map(tofrom : data[0:N])
  {
    compute();
  }
  for (int i = 0; i < N; i++)
    if (data[i] != 2.0 * i) {
      printf("data[%d] = %g, expected %g\n", i, data[i], 2.0 * i);
      return 1;
    }
  free(data);
  printf("PASS\n");
  return 0;
}
