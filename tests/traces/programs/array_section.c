// A section of a local array, to and from.
#include <stdio.h>
int main(void) {
  int a[16] = {0}, s = 0;
#pragma omp target map(to : a[2:8]) map(from : s)
  {
    s = 0;
    for (int i = 2; i < 10; i++) s += a[i] + i;
  }
  puts(s == 44 ? "PASS" : "FAIL");
  return s != 44;
}
