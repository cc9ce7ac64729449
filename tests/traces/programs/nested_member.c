// A member of a nested struct and a pointer section in the nested struct.
// clang 13-19 size the combined entry of `o` as o.in.k alone (4 bytes), so
// o.in.q and its pointer lie outside their parent (member-inside); clang 22
// maps o.in.k alone and attaches o.in.q, whose storage no entry maps
// (attach-storage). Every clang's kernel faults reading o.in.q, naming o.in.k.
// Under LLVM's own runtime it crashes (signal 11) with clang 13-19.
// simtarget-only
// check: member-inside
// check-versions: 13 14 15 16 19
// check-22: attach-storage
// expect-exit: 1
// expect-stderr: 4 bytes past the end of `o.in.k` \(argument [0-9]+, 4 bytes
#include <stdio.h>
#include <stdlib.h>
struct In { int k; int *q; };
struct Out { double d; struct In in; int tail; };
int main(void) {
  struct Out o = {1.0, {3, malloc(8 * sizeof(int))}, 5};
  for (int i = 0; i < 8; i++) o.in.q[i] = i;
#pragma omp target map(tofrom : o.in.k, o.in.q[0:8])
  { o.in.k *= 2; for (int i = 0; i < 8; i++) o.in.q[i] += o.in.k; }
  int ok = o.in.k == 6 && o.in.q[7] == 13;
  free(o.in.q);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
