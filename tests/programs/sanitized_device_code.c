/* sanitized_device_code.c - -fsanitize=address reaches the device code
 * (clang 14 applies it to the device compile): the image cannot load in the
 * device process, which must not start a sanitizer runtime, and the message
 * says so, naming the sanitizer and the flags that keep it to the host
 * (it used to print an empty reason: dlerror's text was read after the
 * next dl call freed it).
 * ppc64le-skip: the message names x86-64 flags
 * versions: 14
 * simtarget-only
 * cflags: -O2 -fsanitize=address
 * env: OMP_TARGET_OFFLOAD=mandatory ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
 * expect-exit: 1
 * expect-stderr: undefined symbol: __asan_.*device code built with -fsanitize=address: keep it to the host.*-Xopenmp-target=<triple> -fno-sanitize=address on clang 14-16 */
#include <stdio.h>

int main(void) {
  int x = 1;
#pragma omp target map(tofrom : x)
  x += 1;
  printf(x == 2 ? "PASS\n" : "FAIL: x = %d\n", x);
  return x == 2 ? 0 : 2;
}
