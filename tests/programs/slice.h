/*
 * slice.h - a thread's scheduler slice, for the tests that check
 * SIMDEVICE_SLICE_US (device_time_slice*.c, tests/simdevice/test_plugin.c).
 * Usable in target regions.
 */
#ifndef SIMTARGET_PROGRAM_SLICE_H
#define SIMTARGET_PROGRAM_SLICE_H

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* sched_getattr's runtime of SCHED_OTHER thread `tid` (0: the calling
 * one): its slice in ns on Linux 6.12 and later, 0 before; -1 when the call
 * fails (qemu-user). */
static inline long long thread_slice_ns_of(pid_t tid) {
  struct {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
  } attr;
  memset(&attr, 0, sizeof attr);
  if (syscall(SYS_sched_getattr, tid, &attr, (unsigned)sizeof attr, 0) != 0)
    return -1;
  return (long long)attr.runtime;
}

static inline long long thread_slice_ns(void) { return thread_slice_ns_of(0); }

#endif
