// Two members of a nested struct, a scalar and an array section:
// map(t.in.y, t.in.z[1:2]). Every clang, 13 to 22, sizes the combined entry
// of `t` as t.in.y alone (4 bytes), so t.in.z[1:2] lies outside its parent:
// `simtarget-maps check` reports member-inside, and the kernel faults
// writing t.in.z, naming `t.in.y` (LLVM's runtime 13-19 fails it too).
// simtarget-only
// check: member-inside
// expect-exit: 1
// expect-stderr: 4 bytes past the end of `t.in.y` \(argument [0-9]+, 4 bytes
#include <stdio.h>
struct In { int x; int y; int z[4]; };
struct T { double d; struct In in; };
int main(void) {
  struct T t = {1.0, {1, 2, {3, 4, 5, 6}}};
#pragma omp target map(tofrom : t.in.y, t.in.z[1:2])
  { t.in.y += 10; t.in.z[1] += 10; t.in.z[2] += 10; }
  int ok = t.in.y == 12 && t.in.z[1] == 14 && t.in.z[2] == 15;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
