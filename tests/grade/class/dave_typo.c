#include <stdio.h>
int main(void) {
  long sum = 0;
#pragma omp target map(tofrom: sum)
  for (int i = 0; i < 100; i++)
    sum += j;
  printf("sum = %ld\n", sum);
  return 0;
}
