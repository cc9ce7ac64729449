/* sanitize_device_xopenmp.cpp - device code alone built with ASan through
 * -Xopenmp-target=<triple> -fsanitize=address (clang 14-15; 13 ignores it):
 * the host process has no ASan, the device process runs under clang's
 * runtime, found from the image's .comment.
 * ppc64le-skip: the cflags name the x86-64 device triple
 * versions: 14 15
 * simtarget-only
 * (LLVM's runtime runs device code in the host process, which has no
 * sanitizer runtime here: the image does not load there)
 * cflags: -O2 -g -Xopenmp-target=x86_64-pc-linux-gnu -fsanitize=address
 * expect: sanitized_device_workload.h runs correctly and ASan reports
 * nothing. */
#include "sanitized_device_workload.h"

int main() { return run_sanitized_device_workload(); }
