/* sanitize_address_clang14.c - offload from a host built with
 * -fsanitize=address by clang 14-16, whose driver applies -Xarch_host to the
 * device compile too: the device part is kept uninstrumented with
 * -Xopenmp-target=<triple> -fno-sanitize=address instead (the way the
 * device-load message advises).
 * ppc64le-skip: the cflags name the x86-64 device triple
 * versions: 14 15 16
 * simtarget-only
 * (about simdevice under a sanitizer; LLVM's runtime leaks under ASan)
 * cflags: -O2 -fsanitize=address -Xopenmp-target=x86_64-pc-linux-gnu -fno-sanitize=address
 * env: ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1
 * expect: sanitized_workload.h runs correctly and the sanitizer reports
 * nothing: the device process starts inside ASan's address-space layout. */
#include "sanitized_workload.h"

int main(void) { return run_sanitized_workload(); }
