// target update to and from inside a data region.
#include <stdio.h>
int main(void) {
  int a[10] = {0};
#pragma omp target data map(alloc : a)
  {
    for (int i = 0; i < 10; i++) a[i] = i;
#pragma omp target update to(a)
#pragma omp target
    for (int i = 0; i < 10; i++) a[i] *= 3;
#pragma omp target update from(a[5:5])
  }
  int ok = a[9] == 27 && a[4] == 4;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
