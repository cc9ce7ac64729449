// map(always, to:) of a present object copies again.
#include <stdio.h>
int main(void) {
  int v = 1, r = 0;
#pragma omp target data map(to : v)
  {
    v = 7;
#pragma omp target map(always, to : v) map(from : r)
    r = v;
  }
  puts(r == 7 ? "PASS" : "FAIL");
  return r != 7;
}
