// A wrong result, with its own expectations file beside it (oscar/
// expectations) that asks for nothing: it must fail all the same.
#include <stdio.h>
int main(void) {
  long sum = 0;
#pragma omp target map(tofrom: sum)
  for (int i = 0; i < 10; i++)
    sum += i;
  printf("sum = %ld\n", sum);
  return 0;
}
