/* sanitize_device_thread_hosts.c - four host threads offload at once
 * (sanitized_workload.h: teams kernels, a reduction, device memory reused
 * between threads' regions) with device code built with ThreadSanitizer:
 * kernels of different host threads run on different server threads, and
 * device memory one kernel used is handed to a later one by the host; the
 * server orders each kernel after those that ended before it started, so
 * TSan reports nothing.
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 22
 * simtarget-only
 * (LLVM's runtime runs device code in the host process, which has no
 * sanitizer runtime here: the image does not load there)
 * cflags: -O2 -g -Xarch_device -fsanitize=thread -Xoffload-linker -zundefs -lpthread
 * expect-stderr-not: ThreadSanitizer
 * expect: the work runs correctly and TSan reports nothing. */
#include "sanitized_workload.h"

int main(void) { return run_sanitized_workload(); }
