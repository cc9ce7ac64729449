/* neg_short_section.c - an array section one element short: map(to:
 * a[0:n-1]) while the kernel reads a[n-1].
 * simtarget-only
 * expect-exit: 1
 * expect-stderr: read address 0x[0-9a-f]+.*past the end|out of bounds
 * expect: the device copy holds n-1 elements (exactly one 4 KiB page here),
 * so a[n-1] lies past its end; simdevice places a guard after device
 * allocations and reports the faulting access. Exit 3 means the read
 * returned something and the error went unnoticed. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  const int n = 1025; /* n-1 ints = 4096 bytes */
  int *a = malloc(n * sizeof(int));
  if (!a) return 2;
  for (int i = 0; i < n; i++) a[i] = i;
  int last = -1;
#pragma omp target map(to : a[0:n - 1]) map(from : last)
  last = a[n - 1];
  printf("read past the mapped section without a fault: a[n-1]=%d\n", last);
  free(a);
  return 3;
}
