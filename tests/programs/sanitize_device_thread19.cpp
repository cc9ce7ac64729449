/* sanitize_device_thread19.cpp - (clang 19: the device link runs the clang driver, hence -Wl,) device code alone built with ThreadSanitizer
 * (-Xarch_device -fsanitize=thread; clang 16+ link device images with
 * --no-undefined, hence -Xoffload-linker -Wl,-zundefs): the device process runs
 * under clang's TSan runtime, and the device runtime's barriers, team
 * joins, locks (critical, atomic, reductions) and task dependences are told
 * to it, so a correct program gets no report: teams and threads that write
 * disjoint parts, a barrier between phases, single, critical, a reduction,
 * tasks with depend, nowait kernels joined by taskwait, a class and a lambda.
 * (clang 14 and 15's TSan runtimes crash at start on this machine's kernel,
 * with or without offloading.)
 * ppc64le-skip: the device sanitizer runtimes are x86-64 libraries
 * versions: 19
 * simtarget-only
 * (LLVM's runtime runs device code in the host process, which has no
 * sanitizer runtime here: the image does not load there)
 * cflags: -O2 -g -Xarch_device -fsanitize=thread -Xoffload-linker -Wl,-zundefs
 * expect-stderr-not: ThreadSanitizer
 * expect: the work runs correctly and TSan reports nothing. */
#include "sanitized_device_threads.h"
/* mpi-skip: sanitized device code: the plugin picks the sanitizer runtime when it validates the image, before the device starts, which a device rank does not see (not supported remotely) */
