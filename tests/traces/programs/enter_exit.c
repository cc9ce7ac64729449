// target enter data / exit data around two regions.
#include <stdio.h>
int main(void) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = i;
#pragma omp target enter data map(to : a)
#pragma omp target
  for (int i = 0; i < 32; i++) a[i] += 1;
#pragma omp target
  for (int i = 0; i < 32; i++) a[i] *= 2;
#pragma omp target exit data map(from : a)
  puts(a[31] == 64 ? "PASS" : "FAIL");
  return a[31] != 64;
}
