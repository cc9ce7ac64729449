/*
 * cpu_load.h - whether this machine has more runnable threads than CPUs
 * right now, so that a thread waiting for another sleeps on its futex
 * instead of spinning. libomp yields instead of spinning when it has more
 * threads than CPUs (KMP_YIELD when oversubscribed), but counts only its
 * own threads; here the threads that compete are mostly other processes
 * (tests run in parallel by `make -j`, `ctest -j`, lit): a spinning waiter
 * then takes CPU time from the very thread it waits for (the host thread
 * for the device's server thread, and back), while a sleeping one is woken
 * by it and, having slept, is run soon. Measured on the 2-core test VM
 * with two busy processes beside the benchmark: an empty `target` took
 * 22.8 us against 0.8 us on LLVM's runtime, map(tofrom) of 4 KiB ran at
 * 0.06x LLVM's rate (tests/bench/loaded.sh).
 *
 * The count is the 4th field of /proc/loadavg (runnable scheduling entities
 * now, the reader included), read every CPU_LOAD_PERIOD_NS (a reading
 * over the CPUs is retaken sooner, below) by whichever waiter finds the
 * last reading old (a compare-and-swap elects it; the others use the last
 * verdict): more runnable threads than CPUs.
 * No hysteresis on the way out: a waiter reads the count just after it
 * woke its partner (the host after posting a request, the server after its
 * reply), so the partner counts as runnable whether the two spin or sleep,
 * and the verdict does not feed on itself (a rule "until a reading below
 * the CPUs" stayed on forever on 2 CPUs, where host and server make 2).
 * On the way in, a reading over the CPUs is believed when the next one,
 * CPU_LOAD_CONFIRM_NS later, is over too: on a quiet machine a starting
 * process or a kernel thread is runnable for a moment (readings of 3 to 9
 * at a program's start on 2 CPUs), and one such reading had both sides
 * sleep for the next 10 ms, at 2-6 us an empty launch instead of 0.25.
 * Busy processes are still there 1 ms later.
 *
 * A real-time thread (SCHED_FIFO / SCHED_RR, e.g. a benchmark under
 * `chrt -f`) is never judged oversubscribed: ordinary threads, however
 * many, cannot take its CPU.
 *
 * The file is opened and closed in the same call (O_CLOEXEC) and errno is
 * kept: the program sees no descriptor and no errno change. Each
 * translation unit that includes this has its own verdict (a few static
 * words). No lock: the state is atomics.
 */
#ifndef SIMTARGET_CPU_LOAD_H
#define SIMTARGET_CPU_LOAD_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "valgrind_hints.h"

#define CPU_LOAD_PERIOD_NS 10000000 /* 10 ms */
/* A reading over the CPUs is retaken this much later (or a tick of the
 * coarse clock, up to 4 ms). */
#define CPU_LOAD_CONFIRM_NS 1000000

static _Atomic int64_t cpu_load_next_ns; /* when the next reading is due */
static _Atomic int cpu_load_over;        /* the verdict */
static _Atomic int cpu_load_high;        /* the last reading was over the CPUs */
static _Atomic int cpu_load_cpus;        /* online CPUs, 0 until read */

/* Runnable threads on the machine now, or -1 if /proc cannot be read. */
static inline int cpu_load_runnable(void) {
  int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char buf[128];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  /* "0.50 0.40 0.30 3/345 12345": skip the three averages */
  char *p = buf;
  for (int field = 0; field < 3 && p; field++)
    if ((p = strchr(p, ' ')) != NULL)
      p++;
  return p ? atoi(p) : -1;
}

static inline int64_t cpu_load_coarse_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t); /* vDSO, no system call */
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The readings and the clock; a unit test defines its own
 * (tests/unit/test_cpu_load.c). */
#ifndef CPU_LOAD_RUNNABLE
#define CPU_LOAD_RUNNABLE cpu_load_runnable
#endif
#ifndef CPU_LOAD_NOW_NS
#define CPU_LOAD_NOW_NS cpu_load_coarse_ns
#endif

/* Takes a new reading at `now` and updates the verdict. */
static inline void cpu_load_sample(int64_t now) {
  int saved = errno;
  int cpus = atomic_load_explicit(&cpu_load_cpus, memory_order_relaxed);
  if (cpus == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpus = n < 1 ? 1 : (int)n;
    atomic_store_explicit(&cpu_load_cpus, cpus, memory_order_relaxed);
  }
  int policy = sched_getscheduler(0);
  int runnable = policy == SCHED_FIFO || policy == SCHED_RR ? 0 : CPU_LOAD_RUNNABLE();
  errno = saved;
  if (runnable < 0)
    return; /* unknown: the verdict stays (spinning unless it said so) */
  int high = runnable > cpus;
  int was_high = atomic_exchange_explicit(&cpu_load_high, high, memory_order_relaxed);
  if (high && !was_high)
    atomic_store_explicit(&cpu_load_next_ns, now + CPU_LOAD_CONFIRM_NS, memory_order_relaxed);
  atomic_store_explicit(&cpu_load_over, high && was_high, memory_order_relaxed);
}

/* 1 when a waiter should sleep rather than spin: more threads want the
 * CPUs than there are. Costs a coarse clock read, and every 10 ms one
 * caller the read of a small /proc file (a few microseconds). */
static inline int cpu_load_oversubscribed(void) {
  /* A hint shared on purpose without ordering (relaxed atomics), which
   * Helgrind would report as races of the device runtime (SIMDEVICE_VALGRIND). */
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&cpu_load_next_ns,
                                             sizeof cpu_load_next_ns));
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&cpu_load_over,
                                             sizeof cpu_load_over));
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&cpu_load_high,
                                             sizeof cpu_load_high));
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&cpu_load_cpus,
                                             sizeof cpu_load_cpus));
  int64_t now = CPU_LOAD_NOW_NS();
  int64_t due = atomic_load_explicit(&cpu_load_next_ns, memory_order_relaxed);
  if (now >= due &&
      atomic_compare_exchange_strong(&cpu_load_next_ns, &due, now + CPU_LOAD_PERIOD_NS))
    cpu_load_sample(now);
  return atomic_load_explicit(&cpu_load_over, memory_order_relaxed);
}

#endif
