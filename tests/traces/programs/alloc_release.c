// map(alloc:) on enter and map(release:) on exit: no copies.
#include <stdio.h>
int main(void) {
  int a[6] = {1, 1, 1, 1, 1, 1}, r = 0;
#pragma omp target enter data map(alloc : a)
#pragma omp target map(from : r)
  { a[0] = 5; r = a[0]; }
#pragma omp target exit data map(release : a)
  int ok = r == 5 && a[0] == 1;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
