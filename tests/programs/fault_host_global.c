// A struct mapped without its pointee: the kernel follows the struct's
// pointer, a host address (a global array) that means nothing on the
// device. The fault names the global and the argument that carried the
// pointer.
// simtarget-only
// cflags: -g
// expect-exit: 1
// expect-stderr: is a host address, in the global `table` \(offset 12 of its 256 bytes\); the pointer came from argument 0 `p\[0:1\]`: its host data holds 0x[0-9a-f]+ at offset 8
#include <stdio.h>
struct S { int n; int *data; };
int table[64];
int main(void) {
  struct S s = {64, table};
  struct S *p = &s;
#pragma omp target map(tofrom : p[0:1])
  { p->data[3] = 7; }
  printf("%d\n", table[3]);
  return 0;
}
