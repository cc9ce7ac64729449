#include <stdio.h>
#define N 100
int main(void) {
  int a[N];
  long sum = 0;
  for (int i = 0; i < N; i++)
    a[i] = i;
  /* sum goes to the device but never comes back */
#pragma omp target map(to: a, sum)
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("sum = %ld\n", sum);
  return 0;
}
