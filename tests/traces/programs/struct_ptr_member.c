// A struct's pointer member and its pointee section.
#include <stdio.h>
#include <stdlib.h>
struct V { int n; float *data; };
int main(void) {
  struct V v = {32, malloc(32 * sizeof(float))};
  for (int i = 0; i < v.n; i++) v.data[i] = 1;
#pragma omp target map(to : v.n) map(tofrom : v.data[0:v.n])
  for (int i = 0; i < v.n; i++) v.data[i] += i;
  int ok = v.data[31] == 32;
  free(v.data);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
