// A user-defined mapper for a struct with a pointer.
#include <stdio.h>
#include <stdlib.h>
struct Buf { int len; int *v; };
#pragma omp declare mapper(struct Buf b) map(b, b.v[0:b.len])
int main(void) {
  struct Buf b = {10, calloc(10, sizeof(int))};
#pragma omp target map(tofrom : b)
  for (int i = 0; i < b.len; i++) b.v[i] = 2 * i;
  int ok = b.v[9] == 18;
  free(b.v);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
