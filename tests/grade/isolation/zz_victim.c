// A correct program that aa_rewriter.c tries to break before it is graded.
#include <stdio.h>
#include <stdlib.h>
#define N 100
int main(void) {
  int *a = malloc(N * sizeof *a);
  for (int i = 0; i < N; i++)
    a[i] = i;
  long sum = 0;
#pragma omp target teams distribute parallel for map(to: a[0:N]) reduction(+: sum)
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("sum = %ld\n", sum);
  free(a);
  return 0;
}
