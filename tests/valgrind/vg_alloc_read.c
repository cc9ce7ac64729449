/* vg_alloc_read.c - a kernel reads map(alloc:) data before writing it: the
 * input array was meant to be mapped `to`. The kernel branches on the
 * garbage (memcheck's report with the kernel's line) and the results it
 * computes from it go back to the host (simtarget names both arrays).
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=memcheck
 * vg-expect: Conditional jump or move depends on uninitialised
 * vg-expect: at 0x[0-9A-F]+: __omp_offloading_.* \(.*vg_alloc_read.c:34\)
 * vg-expect: simdevice: memcheck reported errors in kernel .*no copy and no kernel gave a value: `in\[0:n\]` \(map\(alloc\) at .*vg_alloc_read.c:31
 * vg-finding: "rule":"device-memory-error","variable":"in\[0:n\]"
 * vg-finding: "rule":"never-written-copied-back","variable":"out\[0:n\]"
 * expect: memcheck's report at the kernel's line, then simtarget's naming `in` */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

struct Buffers {
  double *in, *out;
  int n;
};

int main(void) {
  struct Buffers b = {malloc(64 * sizeof(double)), malloc(64 * sizeof(double)), 64};
  double *in = b.in, *out = b.out;
  int n = b.n;
  for (int i = 0; i < n; i++)
    in[i] = i;
  int positive = 0;
#pragma omp target map(alloc : in[0:n]) map(from : out[0:n]) map(tofrom : positive)
  for (int i = 0; i < n; i++) {
    out[i] = 2 * in[i];
    if (in[i] > 0)
      positive++;
  }
  printf("positive %d out[3] %g\nPASS\n", positive, out[3]);
  free(in);
  free(out);
  return 0;
}
