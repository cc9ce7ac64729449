#include <stdio.h>
#include <stdlib.h>
#define N 100
int main(void) {
  int *a = malloc(N * sizeof *a);
  for (int i = 0; i < N; i++)
    a[i] = i;
  long sum = 0;
  /* one element short: a[N-1] is not mapped */
#pragma omp target map(to: a[0:N-1]) map(tofrom: sum)
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("sum = %ld\n", sum);
  free(a);
  return 0;
}
