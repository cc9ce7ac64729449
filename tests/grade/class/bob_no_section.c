#include <stdio.h>
#include <stdlib.h>
#define N 100
int main(void) {
  int *a = malloc(N * sizeof *a);
  for (int i = 0; i < N; i++)
    a[i] = i;
  long sum = 0;
  /* maps the pointer, not the array it points to */
#pragma omp target map(to: a) map(tofrom: sum)
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("sum = %ld\n", sum);
  free(a);
  return 0;
}
