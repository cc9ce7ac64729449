// A pointer to a local array passed by value into a kernel (is_device_ptr
// misused): the kernel writes through a host stack address. The fault names
// the frame of the function that owns it and the argument.
// simtarget-only
// cflags: -g
// expect-exit: 1
// expect-stderr: is a host address, in the stack frame of `fill` on the host thread that ran the construct .*argument [0-9]+ `p`, passed by value
#include <stdio.h>
__attribute__((noinline)) static int fill(int k) {
  int local[16] = {0};
  int *p = local;
#pragma omp target is_device_ptr(p) map(to : k)
  { p[5] = k; }
  return local[5];
}
int main(void) {
  printf("%d\n", fill(3));
  return 0;
}
