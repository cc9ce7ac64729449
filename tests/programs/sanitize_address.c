/* sanitize_address.c - offload from a host built with -fsanitize=address (clang
 * 19; the device code is left uninstrumented with -Xarch_host).
 * ppc64le-skip: the host sanitizer runtime (an x86-64 library) reaches the device link
 * versions: 19
 * simtarget-only
 * (about simdevice under a sanitizer; LLVM 19's runtime leaks under ASan)
 * cflags: -O2 -Xarch_host -fsanitize=address -fno-sanitize-link-runtime -Wl,/usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.asan-x86_64.so -Wl,-rpath,/usr/lib/llvm-19/lib/clang/19/lib/linux
 * env: ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1
 * (programs.sh runs it under stdbuf, whose LD_PRELOAD comes before ASan)
 * expect: sanitized_workload.h runs correctly and the sanitizer reports
 * nothing; the device process starts inside the sanitizer's address-space
 * layout (plugin/address_range.c) and NEEDs only a stand-in of its runtime. */
#include "sanitized_workload.h"

int main(void) { return run_sanitized_workload(); }
/* mpi-skip: LeakSanitizer reports Open MPI's and PMIx's own allocations at exit */
