/* sanitize_device_overflow.c - a kernel overflows a signed int (a sum of
 * large values kept in an int), in device code built with UBSan by
 * -Xopenmp-target=<triple> -fsanitize=undefined: the device process runs
 * under UBSan's runtime, which reports the line and goes on, as on the host
 * (UBSan's default: not fatal).
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 14 15
 * simtarget-only
 * (LLVM's runtime runs device code in the host process, which has no
 * sanitizer runtime here: the image does not load there)
 * cflags: -O2 -g -Xopenmp-target=x86_64-pc-linux-gnu -fsanitize=undefined
 * expect-stderr: sanitize_device_overflow.c:28:[0-9]+: runtime error: signed integer overflow
 * expect: the overflow is reported with its line, and the run goes on. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static int *sizes; /* a file-scope pointer */

int main(int argc, char **argv) {
  (void)argv;
  int n = 4 + (argc > 100);
  sizes = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) sizes[i] = INT_MAX / 3;
  int total = 0;
#pragma omp target map(to : sizes[0:n]) map(tofrom : total)
  for (int i = 0; i < n; i++)
    total += sizes[i];
  printf("PASS\n");
  return 0;
}
