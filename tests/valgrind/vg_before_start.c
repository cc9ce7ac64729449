/* vg_before_start.c - a stencil that reads one element before its
 * section: map(to: a[1:n-1]) while the kernel reads a[i-1] from i = 1.
 * The byte before a device allocation lies in the padding of its page;
 * memcheck's exact bounds report it.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=memcheck
 * vg-expect: Invalid read of size 8
 * vg-expect: at 0x[0-9A-F]+: __omp_offloading_.* \(.*vg_before_start.c:24\)
 * vg-expect: inside a padding before the device allocation of `a\[1:n - 1\]`
 * expect: memcheck reports the read of a[0], before the section */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

int main(void) {
  const int n = 9;
  double *a = malloc(n * sizeof(double)), *d = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = i * i;
#pragma omp target map(to : a[1:n - 1]) map(from : d[1:n - 1])
  for (int i = 1; i < n; i++)
    d[i] = a[i] - a[i - 1];
  printf("d[1] %g\nPASS\n", d[1]);
  free(a);
  free(d);
  return 0;
}
