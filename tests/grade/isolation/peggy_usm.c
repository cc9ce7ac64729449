// Maps nothing of its array, which works only because it requires unified
// shared memory (through a macro, as _Pragma): it must fail.
#include <stdio.h>
#include <stdlib.h>
#define N 100
#define SHARE_EVERYTHING _Pragma("omp requires unified_shared_memory")
SHARE_EVERYTHING
int main(void) {
  int *a = malloc(N * sizeof *a);
  for (int i = 0; i < N; i++)
    a[i] = i;
  long sum = 0;
#pragma omp target map(tofrom: sum)
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("sum = %ld\n", sum);
  free(a);
  return 0;
}
