// A member of a nested struct and a section through a pointer beside it:
// map(s.in.n, s.in.p[0:8]). clang 13-19 size the combined entry of `s` as
// s.in.n alone, so the pointer and the section lie outside it
// (member-inside); clang 22 maps s.in.n and attaches s.in.p, whose storage
// (16 bytes into `s`) no entry maps (attach-storage). The kernel faults
// reading s.in.p with every clang, naming `s.in.n`.
// simtarget-only
// check: member-inside
// check-versions: 13 14 15 16 19
// check-22: attach-storage
// expect-exit: 1
// expect-stderr: 4 bytes past the end of `s.in.n` \(argument [0-9]+, 4 bytes
#include <stdio.h>
#include <stdlib.h>
struct In { int n; int *p; };
struct S { double d; struct In in; };
int main(void) {
  struct S s = {1.0, {8, malloc(8 * sizeof(int))}};
  for (int i = 0; i < 8; i++) s.in.p[i] = i;
#pragma omp target map(tofrom : s.in.n, s.in.p[0:8])
  for (int i = 0; i < s.in.n; i++) s.in.p[i] += 1;
  int ok = s.in.p[7] == 8;
  free(s.in.p);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
