// The correct counterpart of nested_member.c: the whole struct and a section
// through its nested pointer. The codegen is correct with every clang, and
// `simtarget-maps check` reports nothing.
#include <stdio.h>
#include <stdlib.h>
struct In { int k; int *q; };
struct Out { double d; struct In in; int tail; };
int main(void) {
  struct Out o = {1.0, {3, malloc(8 * sizeof(int))}, 5};
  for (int i = 0; i < 8; i++) o.in.q[i] = i;
#pragma omp target map(tofrom : o, o.in.q[0:8])
  { o.in.k *= 2; for (int i = 0; i < 8; i++) o.in.q[i] += o.in.k; }
  int ok = o.in.k == 6 && o.in.q[7] == 13 && o.tail == 5;
  free(o.in.q);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
