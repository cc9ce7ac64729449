/*
 * adaptive_width.c - dyn-var: a parallel region whose width is the
 * runtime's own choice (no num_threads, no honoured thread_limit, no
 * SIMDEVICE_DEFAULT_THREADS, no omp_set_num_threads) runs on one thread
 * when the work it did last time was too small to share.
 *
 * Why: a worker that sleeps must be woken, and on the device's few CPUs
 * (the host thread that waits for the kernel holds one) that costs more
 * than a small loop: `target parallel for` over 4096 elements took 61 us
 * on two threads and 1.7 us on one, on the 2-CPU test VM, against 4.1 us
 * on LLVM's runtime. So, per call site (the outlined region), the runtime
 * keeps the region's last serial work: measured directly when it ran on
 * one thread, estimated as the first thread's busy time times the width
 * when it ran wider (its sleeps at barriers left out, not the tasks it
 * runs there: rt_team_barrier). A site never seen, or whose work reached
 * WIDE_MIN_WORK_NS (twice in a row when it ran narrow; of its narrow runs
 * about 1 in 16 is timed: two clock reads were a tenth of a league of 256
 * tiny teams), runs wide (a
 * site's first run also pays its cold start, so a small region narrows
 * from its second or third run). Hot (spinning) workers cost no wake, so
 * a region that finds one runs wide too. OpenMP lets dyn-var adjust the
 * number of threads of a parallel region; omp_set_dynamic(0) or
 * OMP_DYNAMIC=false turns this off, and it is off under Valgrind.
 *
 * Locks: none. The table is a cache of hints in relaxed atomics: a site
 * that reads another's entry (a collision, a torn pair) gets a valid
 * width either way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt_internal.h"
#include "valgrind_hints.h"

/* Serial work below which a region is not shared out: about what waking
 * one sleeping worker and waiting for it costs on an ordinary machine. */
#define WIDE_MIN_WORK_NS 20000
/* Serial work below which a region leaves the CPU of the launch's waiter
 * to it while that spins (rt_launch_waiter_spins; about 130 us here before
 * it sleeps): a worker on that CPU takes turns with it. `target teams
 * distribute parallel for num_teams(1)` over n doubles on the 2-CPU test
 * VM, best of 5 x 200 launches, one thread against two: n = 131072 21
 * against 82 us, 393216 56 against 74, 524288 74 against 93, 786432 116
 * against 104 (LLVM 14, in the host thread: 42 us at 262144). */
#define BESIDE_SPINNER_MIN_WORK_NS 100000
#define SITES 256 /* a power of two */

struct site_work {
  _Atomic(uintptr_t) site;
  _Atomic int64_t work_ns;
  _Atomic int narrow_over; /* the last narrow run was over the bound */
};
static struct site_work sites[SITES];
static pthread_once_t dynamic_once = PTHREAD_ONCE_INIT;
static _Atomic int dynamic_on;

static void dynamic_init(void)
{
  const char *v = getenv("OMP_DYNAMIC");
  int off = v && (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0);
  atomic_store(&dynamic_on, !off);
}

HIDDEN int rt_dynamic_threads(void)
{
  pthread_once(&dynamic_once, dynamic_init);
  return atomic_load_explicit(&dynamic_on, memory_order_relaxed);
}

/* Under Valgrind a region keeps its width: Helgrind and DRD would take the
 * table's unordered hints for races, and their runs are for finding the
 * program's own races, among as many threads as a plain run used to have. */
HIDDEN int rt_width_adapts(void) { return rt_dynamic_threads() && !valgrind_hints_on; }

EXPORT int omp_get_dynamic(void) { return rt_dynamic_threads(); }

EXPORT void omp_set_dynamic(int on)
{
  pthread_once(&dynamic_once, dynamic_init);
  atomic_store(&dynamic_on, on != 0);
}

static struct site_work *site_slot(const void *site)
{
  uintptr_t h = (uintptr_t)site;
  h ^= h >> 17;
  h *= 0x9e3779b97f4a7c15ull;
  return &sites[(h >> 32) & (SITES - 1)];
}

HIDDEN int32_t rt_width_adapted(const void *site, int32_t want)
{
  struct site_work *s = site_slot(site);
  if (atomic_load_explicit(&s->site, memory_order_relaxed) != (uintptr_t)site)
    return want; /* never seen: wide */
  int64_t work = atomic_load_explicit(&s->work_ns, memory_order_relaxed);
  if (work < WIDE_MIN_WORK_NS)
    return 1;
  if (work < BESIDE_SPINNER_MIN_WORK_NS && rt_launch_waiter_spins()) {
    int32_t left = rt_caps()->ncpus - 1;
    return left < 1 ? 1 : left < want ? left : want;
  }
  return want;
}

HIDDEN int rt_width_time_narrow_run(void)
{
  /* xorshift32: a fixed 1-in-16 stride could keep missing one site among
   * 16 that a thread runs in turn */
  static _Thread_local uint32_t x = 2463534242u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return (x & 15) == 0;
}

HIDDEN void rt_width_record(const void *site, int64_t work_ns, int threads)
{
  struct site_work *s = site_slot(site);
  int seen = atomic_load_explicit(&s->site, memory_order_relaxed) == (uintptr_t)site;
  /* A wide run's estimate only errs upwards (thread 0 waited for a CPU
   * its partner held): the least of them is kept. */
  if (threads > 1 && seen) {
    int64_t before = atomic_load_explicit(&s->work_ns, memory_order_relaxed);
    if (before < work_ns)
      work_ns = before;
  }
  /* A narrow run's is exact unless its thread lost the CPU meanwhile (a
   * busy machine): one narrow run over the bound is only noted, a second
   * in a row widens the region. */
  int over = threads == 1 && work_ns >= WIDE_MIN_WORK_NS;
  if (over && seen && !atomic_exchange_explicit(&s->narrow_over, 1, memory_order_relaxed))
    return;
  atomic_store_explicit(&s->narrow_over, 0, memory_order_relaxed);
  atomic_store_explicit(&s->work_ns, work_ns, memory_order_relaxed);
  atomic_store_explicit(&s->site, (uintptr_t)site, memory_order_relaxed);
}
