// An array used in a region without a map clause (implicit tofrom).
#include <stdio.h>
int main(void) {
  int a[12];
  for (int i = 0; i < 12; i++) a[i] = i;
#pragma omp target
  for (int i = 0; i < 12; i++) a[i] = -a[i];
  puts(a[11] == -11 ? "PASS" : "FAIL");
  return a[11] != -11;
}
