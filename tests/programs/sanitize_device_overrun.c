/* sanitize_device_overrun.c - a kernel writes one char past its section
 * (a loop bound off by one: i <= n), in device code built with
 * -fsanitize=address. The section is 13 bytes, so its end is not 8-byte
 * aligned and the guard page after the allocation lies 3 bytes further:
 * only ASan in the device process, told the allocation's exact bytes, sees
 * the byte. The failure names the bug, the kernel's source line and the
 * mapped section.
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 14 15
 * simtarget-only
 * cflags: -O2 -g -fsanitize=address
 * env: ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
 * expect-exit: 1
 * expect-stderr: AddressSanitizer in the device process: [a-z-]+ at sanitize_device_overrun.c:29:[0-9]+: kernel .* wrote address .*0 bytes past the end of `name\[0:n\]`
 * expect: the one-byte overrun is reported with its line and variable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *name; /* a file-scope pointer */

int main(int argc, char **argv) {
  (void)argv;
  int n = 13 + (argc > 100);
  name = malloc(n + 1);
  strcpy(name, "offload-bytes");
#pragma omp target teams distribute parallel for map(tofrom : name[0:n])
  for (int i = 0; i <= n; i++)
    name[i] = i < n ? name[i] - 32 : '\0';
  printf("%s\nPASS\n", name);
  return 0;
}
