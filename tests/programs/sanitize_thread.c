/* sanitize_thread.c - offload from a host built with -fsanitize=thread (clang
 * 19; the device code is left uninstrumented with -Xarch_host).
 * ppc64le-skip: the host sanitizer runtime (an x86-64 library) reaches the device link
 * versions: 19
 * simtarget-only
 * (about simdevice under a sanitizer; its suppressions name simtarget's
 * libraries)
 * cflags: -O2 -Xarch_host -fsanitize=thread -shared-libsan -Wl,-rpath,/usr/lib/llvm-19/lib/clang/19/lib/linux
 * env: TSAN_OPTIONS=suppressions=../../../tests/programs/tsan_runtimes.supp
 * expect: sanitized_workload.h runs correctly and the sanitizer reports
 * nothing; the device process starts inside the sanitizer's address-space
 * layout (plugin/address_range.c) and NEEDs only a stand-in of its runtime. */
#include "sanitized_workload.h"

int main(void) { return run_sanitized_workload(); }
/* mpi-skip: ThreadSanitizer stops the program at an mmap of Open MPI's (mmap at bad address) */
