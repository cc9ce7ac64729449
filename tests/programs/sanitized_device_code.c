/* sanitized_device_code.c - device code built with -fsanitize=address runs
 * under the runtime of the clang that built it; when that runtime cannot be
 * had (here SIMDEVICE_SANITIZER_RUNTIME names a missing file), the image is
 * refused and the message names the sanitizer, the variable and the file,
 * instead of dlopen's bare "undefined symbol: __asan_...".
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 14
 * simtarget-only
 * cflags: -O2 -fsanitize=address
 * env: OMP_TARGET_OFFLOAD=mandatory ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 SIMDEVICE_SANITIZER_RUNTIME=/nonexistent/libclang_rt.asan-x86_64.so
 * expect-exit: 1
 * expect-stderr: SIMDEVICE_SANITIZER_RUNTIME=/nonexistent/libclang_rt.asan-x86_64.so, the runtime for device code built with -fsanitize=address, cannot be read */
#include <stdio.h>

int main(void) {
  int x = 1;
#pragma omp target map(tofrom : x)
  x += 1;
  printf(x == 2 ? "PASS\n" : "FAIL: x = %d\n", x);
  return x == 2 ? 0 : 2;
}
