/*
 * timeslice.c - the scheduler time slice of the device process.
 *
 * The server's threads sleep until the host posts a command, then work
 * briefly and sleep again. Linux's EEVDF scheduler (6.6 and later) runs a
 * woken thread at once only when its deadline comes before the running
 * thread's, and a thread's deadline is its slice away: with the default slice
 * (about 1.4 ms on 2 cores) a device thread that wakes on a CPU where a host
 * thread spins (libomp in a taskwait or a barrier) waits for that thread's
 * slice to run out. Since Linux 6.12 an unprivileged SCHED_OTHER thread may
 * ask for a shorter slice (sched_attr.sched_runtime, 100 us to 100 ms), so
 * the device process asks for SIMDEVICE_SLICE_US (settings.c of the plugin)
 * before it starts any thread: threads inherit it.
 *
 * Only a request: an older kernel ignores the field, a kernel without
 * sched_setattr (or qemu-user without it) refuses it, and a process run
 * under another policy (SCHED_BATCH, a real-time one) keeps its own. None of
 * that is an error; the device works the same, only slower to wake when the
 * host keeps its CPUs busy.
 *
 * Threads: called once by the main thread before any other thread starts.
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server.h"

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER0); glibc 2.36 has no
 * declaration of its own, and <linux/sched/types.h> clashes with <sched.h>. */
struct kernel_sched_attr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime; /* SCHED_OTHER: the requested slice, in ns */
  uint64_t sched_deadline;
  uint64_t sched_period;
};

void timeslice_request(uint32_t slice_us) {
#if defined(SYS_sched_getattr) && defined(SYS_sched_setattr)
  if (slice_us == 0)
    return;
  struct kernel_sched_attr attr;
  memset(&attr, 0, sizeof attr);
  /* Read first: keep the nice value and the policy the process was given. */
  if (syscall(SYS_sched_getattr, 0, &attr, (unsigned)sizeof attr, 0) != 0 ||
      attr.sched_policy != SCHED_OTHER)
    return;
  attr.size = sizeof attr;
  attr.sched_flags = 0;
  attr.sched_runtime = (uint64_t)slice_us * 1000u;
  (void)syscall(SYS_sched_setattr, 0, &attr, 0);
#else
  (void)slice_us;
#endif
}
