// map(present, tofrom:) of a mapped array.
// cflags: -fopenmp-version=51
#include <stdio.h>
int main(void) {
  int a[4] = {1, 2, 3, 4};
#pragma omp target data map(tofrom : a)
#pragma omp target map(present, tofrom : a)
  a[3] = 40;
  puts(a[3] == 40 ? "PASS" : "FAIL");
  return a[3] != 40;
}
