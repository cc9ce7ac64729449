/*
 * wait.c - spin briefly, then sleep: how the runtime's threads wait for
 * each other (a worker for its next job, a forking thread for its workers).
 *
 * Kernels come back to back (a host loop of target regions): the gap
 * between one kernel's end and the next one's start is a few microseconds.
 * A thread that went to sleep on a futex at once costs a wake system call
 * and two context switches per kernel and per worker (about 10 us per
 * kernel measured, most of it in the OS); one that keeps spinning forever
 * takes a CPU from everything else. So a waiter spins for the spin time
 * (SIMDEVICE_SPIN_US, default 200 us, like libomp's KMP_BLOCKTIME but
 * shorter because the device shares the host's CPUs), yielding the CPU
 * every few hundred polls so that on an oversubscribed machine the thread
 * it waits for gets to run, then sleeps on the futex until woken. A waker
 * makes the system call only when the waiter said it sleeps. When the
 * machine has more runnable threads than CPUs (other processes: tests run
 * in parallel), nobody spins: waiters sleep at once (cpu_load.h).
 *
 * Two shapes:
 *   rt_await_change(word, old, spin)  waits until *word != old; the waker
 *     changes *word, then calls rt_wake_if_sleeping(word, sleeping flag).
 *   rt_count_await_zero / rt_count_down  a count of outstanding workers
 *     whose top bit says "the waiter sleeps": the last rt_count_down wakes
 *     it. The count may live on the waiter's stack: a counter-down touches
 *     the word only in its one atomic step and the wake call that follows
 *     (a FUTEX_WAKE on a word that went away wakes nobody who cares: every
 *     futex waiter here re-checks its condition).
 *
 * Locks: none; every word is an atomic. The helgrind client requests and
 * ThreadSanitizer's annotations tell those tools about the happens-before
 * these atomics carry (no-ops otherwise).
 */
#include <linux/futex.h>
#include <limits.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_load.h"
#include "cpu_relax.h"
#include "rt_internal.h"

#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#define HG_BEFORE(a) ANNOTATE_HAPPENS_BEFORE(a)
#define HG_AFTER(a) ANNOTATE_HAPPENS_AFTER(a)
#else
#define HG_BEFORE(a) ((void)(a))
#define HG_AFTER(a) ((void)(a))
#endif
/* The same for ThreadSanitizer in the device process (rt_internal.h). */
#define HAPPENS_BEFORE(a)                                                  \
  do {                                                                     \
    HG_BEFORE(a);                                                          \
    rt_tsan_release(a);                                                    \
  } while (0)
#define HAPPENS_AFTER(a)                                                   \
  do {                                                                     \
    HG_AFTER(a);                                                           \
    rt_tsan_acquire(a);                                                    \
  } while (0)

#define SLEEPER_BIT 0x80000000u
/* Polls between yields and between clock reads. */
#define POLLS_PER_YIELD 64

static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
  syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wait_ns(_Atomic uint32_t *w, uint32_t val, int64_t ns)
{
  struct timespec rel = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
  syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, &rel, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *w)
{
  syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

HIDDEN int64_t rt_now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t); /* vDSO: no system call */
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

HIDDEN int rt_oversubscribed(void) { return cpu_load_oversubscribed(); }

/* The launch waiter's flag (simdev_rt_set_launch_waiter), per server
 * thread: NULL where no one is known to wait (queue slots, in-process). */
static __thread const _Atomic uint32_t *launch_waiter_sleeping;

HIDDEN void rt_set_launch_waiter(const _Atomic uint32_t *sleeping)
{
  launch_waiter_sleeping = sleeping;
}

HIDDEN int rt_launch_waiter_spins(void)
{
  const _Atomic uint32_t *w = launch_waiter_sleeping;
  return w && atomic_load_explicit(w, memory_order_relaxed) == 0;
}

/* Spins until done(word, arg) or the spin time is over; 1 if done. No spin
 * on a machine with more runnable threads than CPUs: the thread we wait
 * for may be the one that does not get a CPU (cpu_load.h). */
static int spin_until(_Atomic uint32_t *word, uint32_t arg, int (*done)(uint32_t, uint32_t))
{
  /* Done already (a one-thread parallel region has no worker to await):
   * no clock, no load reading. */
  if (done(atomic_load_explicit(word, memory_order_acquire), arg))
    return 1;
  int64_t spin_ns = rt_caps()->spin_ns;
  if (spin_ns <= 0 || cpu_load_oversubscribed())
    return done(atomic_load_explicit(word, memory_order_acquire), arg);
  int64_t deadline = 0;
  for (;;) {
    for (int i = 0; i < POLLS_PER_YIELD; i++) {
      if (done(atomic_load_explicit(word, memory_order_acquire), arg))
        return 1;
      cpu_relax();
    }
    int64_t t = rt_now_ns();
    if (deadline == 0)
      deadline = t + spin_ns;
    else if (t >= deadline)
      return 0;
    /* The thread we wait for may be waiting for our CPU. */
    sched_yield();
  }
}

static int changed(uint32_t v, uint32_t old) { return v != old; }

HIDDEN int rt_await_change(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleeping,
                           int spin, int64_t timeout_ns)
{
  if (spin ? !spin_until(word, old, changed) : atomic_load(word) == old) {
    int64_t deadline = timeout_ns > 0 ? rt_now_ns() + timeout_ns : 0;
    atomic_store(sleeping, 1);
    /* seq_cst store then load, against the waker's change then load of
     * `sleeping`: one of the two sees the other. */
    while (atomic_load(word) == old) {
      if (!deadline) {
        futex_wait(word, old);
        continue;
      }
      int64_t left = deadline - rt_now_ns();
      if (left <= 0) {
        atomic_store(sleeping, 0);
        return 0;
      }
      futex_wait_ns(word, old, left);
    }
    atomic_store(sleeping, 0);
  }
  HAPPENS_AFTER(word);
  return 1;
}

HIDDEN void rt_wake_if_sleeping(_Atomic uint32_t *word, _Atomic uint32_t *sleeping)
{
  if (atomic_load(sleeping))
    futex_wake_all(word);
}

HIDDEN void rt_publish(_Atomic uint32_t *word)
{
  HAPPENS_BEFORE(word);
  atomic_fetch_add(word, 1);
}

static int count_zero(uint32_t v, UNUSED uint32_t arg) { return (v & ~SLEEPER_BIT) == 0; }

HIDDEN void rt_count_await_zero(_Atomic uint32_t *count)
{
  if (!spin_until(count, 0, count_zero)) {
    for (;;) {
      uint32_t v = atomic_load(count);
      if (count_zero(v, 0))
        break;
      if (!(v & SLEEPER_BIT) &&
          !atomic_compare_exchange_strong(count, &v, v | SLEEPER_BIT))
        continue; /* a worker counted down meanwhile */
      futex_wait(count, v | SLEEPER_BIT);
    }
  }
  HAPPENS_AFTER(count);
}

HIDDEN void rt_count_down(_Atomic uint32_t *count)
{
  HAPPENS_BEFORE(count);
  uint32_t old = atomic_fetch_sub(count, 1);
  if (old == (SLEEPER_BIT | 1))
    futex_wake_all(count);
}
