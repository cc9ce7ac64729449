/* sanitize_undefined.c - offload from a host built with -fsanitize=undefined (clang
 * 19; the device code is left uninstrumented with -Xarch_host).
 * ppc64le-skip: the host sanitizer runtime (an x86-64 library) reaches the device link
 * versions: 19
 * cflags: -O2 -Xarch_host -fsanitize=undefined -Xarch_host -fno-sanitize-recover=undefined -Xarch_host -fno-sanitize=pointer-overflow -shared-libsan -Wl,-rpath,/usr/lib/llvm-19/lib/clang/19/lib/linux
 * (pointer-overflow is left out: clang 19's own code for the section of a
 * file-scope pointer trips it on the host, whatever the runtime)
 * expect: sanitized_workload.h runs correctly and the sanitizer reports
 * nothing; the device process starts inside the sanitizer's address-space
 * layout (plugin/address_range.c); it loads the real UBSan runtime, which
 * maps no shadow. */
#include "sanitized_workload.h"

int main(void) { return run_sanitized_workload(); }
