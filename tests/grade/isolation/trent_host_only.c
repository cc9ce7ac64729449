// The right output with no target region at all: it must fail.
#include <stdio.h>
int main(void) {
  long sum = 0;
  for (int i = 0; i < 100; i++)
    sum += i;
  printf("sum = %ld\n", sum);
  return 0;
}
