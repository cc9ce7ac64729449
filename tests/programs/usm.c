/* usm.c - requires unified_shared_memory on a device with its own memory.
 * simtarget-only
 * expect-exit: 1
 * expect-stderr: unified.?shared.?memory
 * expect-stderr-not: stopped with|not device memory
 * expect: simdevice runs kernels in another address space, so it cannot give
 * unified shared memory. The runtime must refuse the requirement clearly
 * (naming it) rather than run the region against host pointers it cannot
 * reach; under OMP_TARGET_OFFLOAD=mandatory that ends the program with
 * status 1, before any kernel touches a host pointer (a device fault
 * report means the requirement was not enforced). If the region ran
 * anyway the program exits 3. (LLVM's host
 * plugin shares the address space and runs it: exit 0 there.) */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

#pragma omp requires unified_shared_memory

int main(void) {
  int n = 32;
  int *p = malloc(n * sizeof(int));
  if (!p) return 2;
  for (int i = 0; i < n; i++) p[i] = i;
  /* No map clause: under USM the host pointer is used directly. */
#pragma omp target
  for (int i = 0; i < n; i++) p[i] += 5;
  int ok = p[31] == 36;
  printf("the region ran under unified_shared_memory (%s)\n",
         ok ? "results right" : "results wrong");
  free(p);
  return 3;
}
