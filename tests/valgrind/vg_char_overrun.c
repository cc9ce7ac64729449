/* vg_char_overrun.c - a string section one char short: map(to: s[0:n-1])
 * while the kernel reads s[n-1]. The device copy ends 7 bytes before its
 * guard page (8-byte end alignment), so without memcheck the read lands
 * in padding and goes unnoticed; memcheck's exact bounds report it.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=memcheck
 * vg-expect: Invalid read of size 1
 * vg-expect: at 0x[0-9A-F]+: __omp_offloading_.* \(.*vg_char_overrun.c:28\)
 * vg-expect: 12 bytes inside a device allocation of `s\[0:n - 1\]` \(map\(to\) at .*vg_char_overrun.c:26
 * vg-finding: "check":"memcheck","rule":"device-memory-error"
 * expect: memcheck reports the one-byte read past the section with the kernel's line */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

char *s; /* a global pointer, as users write them */

int main(void) {
  const int n = 13;
  s = malloc(n);
  strcpy(s, "hello, world");
  int sum = 0;
#pragma omp target map(to : s[0:n - 1]) map(tofrom : sum)
  for (int i = 0; i < n; i++)
    sum += s[i];
  printf("sum %d\nPASS\n", sum);
  free(s);
  return 0;
}
