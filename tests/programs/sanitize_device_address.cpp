/* sanitize_device_address.cpp - -fsanitize=address on both sides: clang
 * 13-15 instrument the device code too, which then runs in the device
 * process under ASan (the runtime of the clang that built it, preloaded).
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 13 14 15
 * cflags: -O2 -g -fsanitize=address
 * env: ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
 * expect: sanitized_device_workload.h runs correctly and ASan reports
 * nothing: every access stays inside its section, to the byte. */
#include "sanitized_device_workload.h"

int main() { return run_sanitized_device_workload(); }
