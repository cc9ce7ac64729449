/* vg_char_overrun.c - a string section one char short: map(to: s[0:n-1])
 * while the kernel reads s[n-1]. The device copy ends 7 bytes before its
 * guard page (8-byte end alignment), so without memcheck the read lands
 * in padding and goes unnoticed; memcheck's exact bounds report it.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=memcheck
 * expect-stderr: Invalid read of size 1.*(\n.*)*vg_char_overrun.c:2[0-9].*(\n.*)*0 bytes after a device allocation of `s
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
