// A kernel that writes past its mapped section fails the construct: the
// report lists the construct's arguments and the mapping table as it was
// when the construct failed (before the undo removed its entries: the
// report used to print "0 entries").
// simtarget-only
// cflags: -g
// expect-exit: 1
// expect-stderr: mapping table of device 0 when the construct failed: 2 entries
#include <stdio.h>
int main(void) {
  int n = 8, a[8] = {0}, b[8] = {0};
  volatile int over = 1024;
#pragma omp target map(tofrom : a[0:n], b[0:n])
  { a[over] = 1; b[0] = 2; }
  printf("%d %d\n", a[0], b[0]);
  return 0;
}
