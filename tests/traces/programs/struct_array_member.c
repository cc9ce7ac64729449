// An array member section of a struct and a scalar member after it.
#include <stdio.h>
struct T { int h; int arr[10]; int z; };
int main(void) {
  struct T t = {0};
#pragma omp target map(tofrom : t.arr[2:5], t.z)
  { for (int i = 2; i < 7; i++) t.arr[i] = i; t.z = 7; }
  int ok = t.arr[6] == 6 && t.z == 7;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
