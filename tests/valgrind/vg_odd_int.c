/* vg_odd_int.c - an odd-length int section one element short: map(to:
 * a[0:n-1]) with n-1 = 5 ints (20 bytes, padded to 24 before the guard
 * page) while the kernel reads a[n-1].
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=memcheck
 * vg-expect: Invalid read of size 4
 * vg-expect: at 0x[0-9A-F]+: __omp_offloading_.* \(.*vg_odd_int.c:26\)
 * vg-expect: 20 bytes inside a device allocation of `a\[0:n - 1\]`
 * expect: memcheck reports the read of a[5] past the 5-int section */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

int *a;

int main(void) {
  const int n = 6;
  a = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++)
    a[i] = i + 1;
  int sum = 0;
#pragma omp target map(to : a[0:n - 1]) map(tofrom : sum)
  for (int i = 0; i < n; i++)
    sum += a[i];
  printf("sum %d\nPASS\n", sum);
  free(a);
  return 0;
}
