// A heap block reached through an unmapped pointer member of a mapped
// struct: the fault says it is host heap memory and which argument held the
// pointer. The failure report prints the mapping table as it was when the
// construct failed (the struct's entry, not "0 entries").
// simtarget-only
// cflags: -g
// expect-exit: 1
// expect-stderr: is a host address, in host heap memory .*the pointer came from argument 0 `v`: its host data holds 0x[0-9a-f]+ at offset 8
#include <stdio.h>
#include <stdlib.h>
struct Vec { long n; double *x; };
int main(void) {
  struct Vec v = {100, calloc(100, sizeof(double))};
#pragma omp target map(tofrom : v)
  { for (long i = 0; i < v.n; i++) v.x[i] = 1.0; }
  printf("%f\n", v.x[99]);
  free(v.x);
  return 0;
}
