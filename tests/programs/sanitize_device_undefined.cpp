/* sanitize_device_undefined.cpp - -fsanitize=undefined on both sides (clang
 * 13-15 instrument the device code too): the device process runs under the
 * UBSan runtime of the clang that built the image, and a correct program
 * gets no report.
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 13 14 15
 * cflags: -O2 -g -fsanitize=undefined
 * expect-stderr-not: runtime error
 * expect: sanitized_device_workload.h runs correctly and UBSan reports
 * nothing. */
#define WANT_DEVICE_ASAN 0
#include "sanitized_device_workload.h"

int main() { return run_sanitized_device_workload(); }
