/* sanitize_device_odd_int.c - a kernel writes one int past an odd-length
 * int section (7 ints: 28 bytes, 4 short of the 8-byte-aligned end where
 * the guard page starts), in device code built by clang 19 with
 * -Xarch_device -fsanitize=address. ASan in the device process reports the
 * write with its line and the section.
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 19
 * simtarget-only
 * cflags: -O2 -g -Xarch_device -fsanitize=address -Xoffload-linker -Wl,-zundefs
 * expect-exit: 1
 * expect-stderr: AddressSanitizer in the device process: [a-z-]+ at sanitize_device_odd_int.c:24:[0-9]+: .* wrote address .*0 bytes past the end of `v\[0:n\]`
 * expect: the overrun of an odd-length int section is reported. */
#include <stdio.h>
#include <stdlib.h>

static int *v; /* a file-scope pointer */

int main(int argc, char **argv) {
  (void)argv;
  int n = 7 + (argc > 100);
  v = calloc(n + 1, sizeof(int));
#pragma omp target teams distribute parallel for map(tofrom : v[0:n])
  for (int i = 0; i <= n; i++)
    v[i] = i * i;
  printf("%d\nPASS\n", v[n - 1]);
  return 0;
}
/* mpi-skip: sanitized device code: the plugin picks the sanitizer runtime when it validates the image, before the device starts, which a device rank does not see (not supported remotely) */
