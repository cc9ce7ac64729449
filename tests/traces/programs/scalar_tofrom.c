// A scalar mapped tofrom, one implicit scalar (firstprivate).
#include <stdio.h>
int main(void) {
  int x = 1, n = 41;
#pragma omp target map(tofrom : x)
  x += n;
  puts(x == 42 ? "PASS" : "FAIL");
  return x != 42;
}
