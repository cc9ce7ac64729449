/* 14-reading-diagnostics/broken_kernel_fault.c - a kernel that writes
 * through a bad index.
 * info: 0x01
 * expect-exit: 1
 * expect: wrote address
 * The loop runs to i <= n, one element past the mapped array, and then
 * far past it: the device process faults, and the message tells the
 * kernel, the address, the allocation it is next to and the argument. */
#include <stdio.h>

int main(void) {
  int n = 1024;
  int vals[1024];
#pragma omp target map(from : vals)
  for (int i = 0; i <= n; i++) vals[i * 16] = i;
  printf("vals[0] = %d\n", vals[0]);
  return 0;
}
