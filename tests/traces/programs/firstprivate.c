// firstprivate array and scalar.
#include <stdio.h>
int main(void) {
  int a[4] = {1, 2, 3, 4}, s = 0;
  long k = 5;
#pragma omp target firstprivate(a, k) map(from : s)
  { a[0] += 100; s = a[0] + a[3] + (int)k; }
  int ok = s == 110 && a[0] == 1;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
