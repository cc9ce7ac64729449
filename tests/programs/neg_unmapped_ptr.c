/* neg_unmapped_ptr.c - the forgotten map: a heap pointer used inside a target
 * region without mapping what it points to.
 * simtarget-only
 * expect-exit: 1
 * expect-stderr: (read|wrote) (host )?address 0x[0-9a-f]+.*not device memory|read host address
 * expect: p is passed as a zero-size implicit map that finds nothing, so the
 * device receives the host address. In simdevice's separate address space
 * the access faults and the runtime reports it (LLVM's host plugin shares
 * the address space, so there the bug goes unnoticed). Exit 3 means the
 * region ran without a fault: the bug was hidden. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  /* Large enough for its own mmap, far from anything in the device. */
  size_t n = 4u << 20;
  int *p = malloc(n * sizeof(int));
  if (!p) return 2;
  p[0] = 41;
#pragma omp target /* missing: map(tofrom : p[0:n]) */
  p[0] += 1;
  printf("the region ran with an unmapped pointer: p[0]=%d\n", p[0]);
  free(p);
  return 3;
}
