// Nested data regions: the inner map only counts references.
#include <stdio.h>
int main(void) {
  int a[8] = {0};
#pragma omp target data map(tofrom : a)
  {
#pragma omp target data map(tofrom : a)
    {
#pragma omp target
      a[0] = 9;
    }
    a[1] = a[0]; /* still the host's 0: nothing copied back yet */
  }
  int ok = a[0] == 9 && a[1] == 0;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
