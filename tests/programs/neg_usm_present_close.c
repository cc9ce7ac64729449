/* neg_usm_present_close.c - under `requires unified_shared_memory`,
 * `map(present, close, ...)` of an object never mapped is still refused:
 * `close` asks for a device copy of its own, which does not exist.
 * cflags: -O2 -fopenmp-version=51
 * ppc64le-skip: requires unified_shared_memory, which simdevice serves by running kernels in the (x86-64) host process
 * expect-exit: 1
 * expect-stderr: present
 * simtarget-only
 * (LLVM 13-19 refuse it too, with "device mapping required by 'present' map
 * type modifier does not exist", but end by abort(): status 134.)
 * expect: the region fails (on simtarget naming map(present) of an absent
 * object; on LLVM with its 'present' message), and nothing after it runs. */
#include <stdio.h>
#include "check.h"

#pragma omp requires unified_shared_memory

static int table[64];

int main(void) {
#pragma omp target map(present, close, tofrom : table)
  table[0] = 1;
  printf("not reached\n");
  return check_finish();
}
