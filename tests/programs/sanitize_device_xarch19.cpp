/* sanitize_device_xarch19.cpp - device code alone built with ASan by clang
 * 19, whose device link runs the clang driver (hence -Wl,-zundefs against
 * its --no-undefined); the device process runs under clang 19's runtime.
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 19
 * simtarget-only
 * (LLVM's runtime runs device code in the host process, which has no
 * sanitizer runtime here: the image does not load there)
 * cflags: -O2 -g -Xarch_device -fsanitize=address -Xoffload-linker -Wl,-zundefs
 * expect: sanitized_device_workload.h runs correctly and ASan reports
 * nothing. */
#include "sanitized_device_workload.h"

int main() { return run_sanitized_device_workload(); }
/* mpi-skip: sanitized device code: the plugin picks the sanitizer runtime when it validates the image, before the device starts, which a device rank does not see (not supported remotely) */
