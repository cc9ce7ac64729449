/* sanitize_device_xarch.cpp - device code alone built with ASan
 * (-Xarch_device -fsanitize=address; clang 16+ link device images with
 * --no-undefined, hence -Xoffload-linker -zundefs): the host process has no
 * ASan, the device process runs under clang's runtime, found from the
 * image's .comment.
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 16 22
 * simtarget-only
 * (LLVM's runtime runs device code in the host process, which has no
 * sanitizer runtime here: the image does not load there)
 * cflags: -O2 -g -Xarch_device -fsanitize=address -Xoffload-linker -zundefs
 * expect: sanitized_device_workload.h runs correctly and ASan reports
 * nothing. */
#include "sanitized_device_workload.h"

int main() { return run_sanitized_device_workload(); }
