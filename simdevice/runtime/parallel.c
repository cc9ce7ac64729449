/*
 * parallel.c - forking: `teams` (__kmpc_fork_teams), `parallel`
 * (__kmpc_fork_call, serialized parallel) and the clauses pushed before
 * them.
 *
 * A league's teams run on at most CPUs runners (the forking thread and pool
 * workers), each runner claiming the next team until none is left, so a
 * league larger than the CPUs runs in turn on a bounded set of threads (a
 * team whose worker could not be had runs on a runner that exists). A
 * parallel region's threads are the forking thread (thread 0) and the pool
 * workers free at that moment (never waited for). Nested parallel regions
 * inside an active one get one thread.
 *
 * Locks: none of its own. A league's `running` and a parallel team's
 * `workers_running` are atomic counts of workers not yet done: each worker
 * counts down once, the forking thread spins then sleeps until zero
 * (wait.c), and its stack holds the team/league until then (see
 * rt_internal.h for the team's own lock).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"
#include "simdev_rt.h"

/* Outlined regions receive (&gtid, &btid) before the user arguments. */
#define MAX_USER_ARGS (SIMDEV_MAX_ARGS - 2)

EXPORT int32_t __kmpc_global_thread_num(UNUSED ident_t *loc) { return rt_gtid(); }
EXPORT int32_t __kmpc_global_num_threads(UNUSED ident_t *loc) { return rt_current()->team->nthreads; }
EXPORT int32_t __kmpc_bound_thread_num(UNUSED ident_t *loc) { return rt_current()->tid; }
EXPORT int32_t __kmpc_bound_num_threads(UNUSED ident_t *loc) { return rt_current()->team->nthreads; }
EXPORT int32_t __kmpc_in_parallel(UNUSED ident_t *loc) { return rt_current()->team->active_level > 0; }
EXPORT int32_t __kmpc_ok_to_fork(UNUSED ident_t *loc) { return 1; }
EXPORT void __kmpc_begin(UNUSED ident_t *loc, UNUSED int32_t flags) {}
EXPORT void __kmpc_end(UNUSED ident_t *loc) {}

EXPORT void __kmpc_push_num_threads(UNUSED ident_t *loc, UNUSED int32_t gtid, int32_t n)
{
  rt_current()->push_num_threads = n;
}

/* num_threads(strict: n) (6.0): n threads or the error the user chose. */
static void push_strict(ident_t *loc, int32_t n, int32_t severity, const char *message)
{
  rt_current()->push_num_threads = n;
  int32_t most = rt_caps()->max_threads;
  if (n > most) {
    char where[256];
    fprintf(stderr, "OMP: %s at %s: num_threads(strict: %d) cannot be met, a team has at most %d "
            "threads here (SIMDEVICE_MAX_THREADS): %s\n",
            severity == 2 ? "Error" : "Warning", rt_loc(loc, where, sizeof(where)), n, most,
            message ? message : "");
    if (severity == 2)
      abort();
  }
}

EXPORT void __kmpc_push_num_threads_strict(ident_t *loc, UNUSED int32_t gtid, int32_t n,
                                           int32_t severity, const char *message)
{
  push_strict(loc, n, severity, message);
}

/* num_threads(n1, n2, ...): nested regions here run on one thread, so the
 * first level's number is what matters. */
EXPORT void __kmpc_push_num_threads_list(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                         uint32_t length, const uint32_t *list)
{
  if (length > 0 && list)
    rt_current()->push_num_threads = (int32_t)list[0];
}

EXPORT void __kmpc_push_num_threads_list_strict(ident_t *loc, UNUSED int32_t gtid,
                                                uint32_t length, const uint32_t *list,
                                                int32_t severity, const char *message)
{
  if (length > 0 && list)
    push_strict(loc, (int32_t)list[0], severity, message);
}

EXPORT void __kmpc_pop_num_threads(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  rt_current()->push_num_threads = 0;
}

/* proc_bind has no meaning for pool threads; accepted and ignored. */
EXPORT void __kmpc_push_proc_bind(UNUSED ident_t *loc, UNUSED int32_t gtid, UNUSED int proc_bind) {}

EXPORT void __kmpc_push_num_teams(UNUSED ident_t *loc, UNUSED int32_t gtid, int32_t num_teams,
                                  int32_t thread_limit)
{
  struct rt_member *m = rt_current();
  m->push_num_teams = num_teams;
  m->push_thread_limit = thread_limit;
}

/* OpenMP 5.1 num_teams(lb:ub): any count in the range is conforming; the
 * upper bound is used (then clamped to the cap, but not below lb unless the
 * cap forces it). */
EXPORT void __kmpc_push_num_teams_51(ident_t *loc, int32_t gtid, UNUSED int32_t lb, int32_t ub,
                                     int32_t thread_limit)
{
  __kmpc_push_num_teams(loc, gtid, ub, thread_limit);
}

EXPORT void __kmpc_set_thread_limit(UNUSED ident_t *loc, UNUSED int32_t gtid, int32_t limit)
{
  struct rt_member *m = rt_current();
  if (limit > 0)
    rt_pick_widths(limit, 1, &m->team->thread_limit, &m->team->default_threads,
                   &m->team->default_adaptive);
}

/* ------------------------------------------------------------ parallel */

/* argv: the outlined region's arguments, t->argc of them from argv[2] on;
 * argv[0] and argv[1] are set here (&gtid, &btid). */
static void run_implicit_task(struct rt_team *t, int32_t tid, struct rt_member *prev,
                              uint64_t *argv)
{
  struct rt_member m;
  rt_member_init(&m, t, tid);
  m.prev = prev;
  rt_set_current(&m);

  int32_t gtid = rt_gtid();
  int32_t btid = tid;
  argv[0] = (uint64_t)(uintptr_t)&gtid;
  argv[1] = (uint64_t)(uintptr_t)&btid;
  simdev_call(t->microtask, t->argc + 2, argv);

  /* The implicit barrier at the end of the region; it also completes every
   * task the region's threads created. */
  rt_team_barrier(t);
  rt_set_current(prev);
}

static void parallel_worker(void *arg)
{
  struct rt_team *t = arg;
  int32_t tid = atomic_fetch_add(&t->next_tid, 1);
  uint64_t argv[SIMDEV_MAX_ARGS];
  if (t->argc > 0)
    memcpy(argv + 2, t->args, (size_t)t->argc * sizeof(uint64_t));
  run_implicit_task(t, tid, NULL, argv);
}

static void parallel_worker_done(void *arg)
{
  struct rt_team *t = arg;
  rt_count_down(&t->workers_running);
}

/* *adaptive: the size is the runtime's own default, which dyn-var may
 * narrow (adaptive_width.c). */
static int32_t parallel_size(struct rt_member *m, int *adaptive)
{
  struct rt_team *p = m->team;
  int32_t want = m->push_num_threads;
  m->push_num_threads = 0;
  *adaptive = 0;
  if (p->active_level > 0)
    return 1; /* nested parallelism is serialised */
  if (want <= 0 && m->nthreads_var <= 0) {
    want = p->default_threads;
    *adaptive = p->default_adaptive && want > 1 && rt_width_adapts();
  } else if (want <= 0) {
    want = m->nthreads_var;
  }
  if (want > p->thread_limit)
    want = p->thread_limit;
  return want < 1 ? 1 : want;
}

/* Runs `microtask` on a new team; argv[2..argc + 2) hold its argc
 * pointer-sized arguments, argv[0] and argv[1] are free (the forking
 * thread's call uses this very array: no copy). */
static void fork_parallel(ident_t *loc, int32_t argc, void *microtask, uint64_t *argv)
{
  struct rt_member *m = rt_current();
  int adaptive;
  int32_t want = parallel_size(m, &adaptive);
  if (want > rt_caps()->max_workers + 1)
    want = rt_caps()->max_workers + 1; /* the pool has no more */
  /* Too little work to share, and no worker hot: the wake would cost more
   * (or take turns with a spinning waiter). */
  if (adaptive && want > 1 && !rt_pool_workers_spinning()) {
    want = rt_width_adapted(microtask, want);
    if (want == 1)
      adaptive = rt_width_time_narrow_run();
  }
  struct rt_worker *workers_small[16];
  struct rt_worker **workers = workers_small;
  struct rt_team t;

  if (want > 16) {
    workers = malloc((size_t)want * sizeof(*workers));
    if (!workers) {
      char where[256];
      rt_error("parallel at %s: out of memory for %d threads; running it on 1 thread",
               rt_loc(loc, where, sizeof(where)), want);
      workers = workers_small;
      want = 1;
    }
  }
  int got = want > 1 ? rt_pool_acquire(want - 1, workers) : 0;
  if (rt_team_init(&t, 1 + got, m) != 0) {
    char where[256];
    rt_error("parallel at %s: cannot initialise the team's lock; region skipped",
             rt_loc(loc, where, sizeof(where)));
    rt_pool_release(workers, got);
    goto out_free_workers;
  }
  t.microtask = microtask;
  t.argc = argc;
  t.args = argv + 2;
  /* Relaxed: rt_pool_start publishes the team to each worker (release), and
   * a seq_cst store here drained the store buffer of the memset above, in
   * every one-thread parallel region of a GPU-shaped league. */
  atomic_store_explicit(&t.next_tid, 1, memory_order_relaxed);
  atomic_store_explicit(&t.workers_running, (uint32_t)got, memory_order_relaxed);
  for (int i = 0; i < got; i++)
    rt_pool_start(workers[i], parallel_worker, parallel_worker_done, &t);

  int64_t start = 0;
  if (adaptive) {
    t.measure_forker_waits = 1;
    start = rt_now_ns();
  }
  run_implicit_task(&t, 0, m, argv);
  if (adaptive) {
    /* Thread 0's share of the work times the width; past the CPUs, its
     * time also holds the turns its siblings had on its CPU, so times the
     * CPUs (16 threads on 2 CPUs otherwise looked 8 times the work, and a
     * tiny region stayed wide). */
    int32_t cpus = rt_caps()->ncpus;
    int32_t share = 1 + got < cpus ? 1 + got : cpus;
    rt_width_record(microtask, (rt_now_ns() - start - t.forker_wait_ns) * share, 1 + got);
  }

  if (got > 0) /* a one-thread region (most of a GPU-shaped league's) has none */
    rt_count_await_zero(&t.workers_running);
  rt_pool_release(workers, got);
  rt_team_destroy(&t);
out_free_workers:
  if (workers != workers_small)
    free(workers);
  return;
}

EXPORT void __kmpc_fork_call(ident_t *loc, int32_t argc, kmpc_micro microtask, ...)
{
  if (argc < 0 || argc > MAX_USER_ARGS) {
    char where[256];
    rt_error("parallel at %s: %d shared arguments, the most supported is %d; region skipped",
             rt_loc(loc, where, sizeof(where)), argc, MAX_USER_ARGS);
    return;
  }
  uint64_t argv[SIMDEV_MAX_ARGS];
  va_list ap;
  va_start(ap, microtask);
  for (int i = 0; i < argc; i++)
    argv[2 + i] = (uint64_t)(uintptr_t)va_arg(ap, void *);
  va_end(ap);
  fork_parallel(loc, argc, (void *)microtask, argv);
}

/* parallel if(cond) as emitted by OpenMPIRBuilder: args is an array. */
EXPORT void __kmpc_fork_call_if(ident_t *loc, int32_t argc, kmpc_micro microtask, int32_t cond,
                                void *args)
{
  if (argc < 0 || argc > MAX_USER_ARGS) {
    char where[256];
    rt_error("parallel at %s: %d shared arguments, the most supported is %d; region skipped",
             rt_loc(loc, where, sizeof(where)), argc, MAX_USER_ARGS);
    return;
  }
  uint64_t argv[SIMDEV_MAX_ARGS];
  for (int i = 0; i < argc; i++)
    argv[2 + i] = (uint64_t)(uintptr_t)((void **)args)[i];
  if (!cond)
    rt_current()->push_num_threads = 1;
  fork_parallel(loc, argc, (void *)microtask, argv);
}

/* parallel if(false): the compiler calls the outlined function itself
 * between these two, on the encountering thread. */
struct serialized_region {
  struct rt_team team;
  struct rt_member member;
};

EXPORT void __kmpc_serialized_parallel(ident_t *loc, UNUSED int32_t gtid)
{
  struct rt_member *m = rt_current();
  m->push_num_threads = 0;
  struct serialized_region *r = malloc(sizeof(*r));
  if (!r || rt_team_init(&r->team, 1, m) != 0) {
    char where[256];
    rt_error("serialized parallel at %s: out of memory; the region runs in the enclosing "
             "team's context",
             rt_loc(loc, where, sizeof(where)));
    free(r);
    /* The matching end then only undoes this count. */
    m->unopened_serialized++;
    return;
  }
  rt_member_init(&r->member, &r->team, 0);
  r->member.prev = m;
  rt_set_current(&r->member);
}

EXPORT void __kmpc_end_serialized_parallel(ident_t *loc, UNUSED int32_t gtid)
{
  struct rt_member *m = rt_current();
  if (m->unopened_serialized > 0) {
    m->unopened_serialized--;
    return;
  }
  if (!m->prev || m->team->nthreads != 1 || m == m->prev) {
    char where[256];
    rt_error("end serialized parallel at %s: no serialized parallel region is open",
             rt_loc(loc, where, sizeof(where)));
    return;
  }
  struct serialized_region *r = (struct serialized_region *)((char *)m - offsetof(struct serialized_region, member));
  rt_team_barrier(&r->team);
  rt_set_current(m->prev);
  rt_team_destroy(&r->team);
  free(r);
}

/* ------------------------------------------------------------ teams */

/* Waking a sleeping worker costs the forking thread a system call and the
 * worker a context switch before it runs a team: for a league that takes
 * less than this on one thread, the forking thread runs the teams itself
 * sooner (teams need not run at once). At least WAKE_WORTH_MIN_NS, and
 * twice what a wake of this region's workers has been taking (its history):
 * on the 2-CPU test VM woken workers began 37-74 us after their wake (the
 * host's waiting thread holds the other CPU), and waking them for leagues of
 * 30-120 us made those slower than the forking thread alone. */
#define WAKE_WORTH_MIN_NS 30000
#define WAKE_WORTH_MAX_NS 1000000

struct league_run {
  struct rt_league league;
  void *microtask;
  int32_t argc;
  const uint64_t *args;
  int32_t runners; /* the forking thread and the workers posted a job */
  /* Written by every runner at each claim: on a cache line of its own, so
   * the fields above, which every team reads, are not pulled away from the
   * other runners at each claim. */
  _Alignas(64) _Atomic int32_t next_team; /* the next team not yet claimed by a runner */
  _Atomic uint32_t running; /* workers not yet done (rt_count_down) */
};

/* Runs team `team_num` on `t`, a team of one whose lock and condition
 * variable are initialised and free (a runner keeps one for all its teams:
 * a GPU-shaped league runs hundreds of teams of a few microseconds), with
 * the runner's `argv`: &gtid, &btid and the league's arguments, the same
 * for each of its teams. */
static void run_team(struct league_run *lr, struct rt_team *t, int32_t team_num,
                     const uint64_t *argv)
{
  struct rt_member *prev = rt_current();
  rt_team_reinit_keeping_sync(t);
  t->team_num = team_num;
  t->league = &lr->league;
  t->thread_limit = lr->league.thread_limit;
  t->default_threads = lr->league.default_threads;
  t->default_adaptive = lr->league.default_adaptive;
  struct rt_member m;
  rt_member_init(&m, t, 0);
  m.prev = prev;
  rt_set_current(&m);
  simdev_call(lr->microtask, lr->argc + 2, argv);
  rt_team_barrier(t); /* completes the team's tasks; the lock is free again */

  rt_set_current(prev);
}

/* The next teams for a runner: [*first, *first + n), n = 0 when none is
 * left. A share of the teams left that shrinks as the league drains (as a
 * guided schedule does): the runners meet on the counter a few times per
 * league instead of once per team, and still finish together. */
static int32_t claim_teams(struct league_run *lr, int32_t *first)
{
  int32_t next = atomic_load_explicit(&lr->next_team, memory_order_relaxed);
  for (;;) {
    int32_t left = lr->league.nteams - next;
    if (left <= 0)
      return 0;
    int32_t n = left / (2 * lr->runners);
    if (n < 1)
      n = 1;
    if (atomic_compare_exchange_weak(&lr->next_team, &next, next + n)) {
      *first = next;
      return n;
    }
  }
}

/* The sleeping workers the forking thread posted a job to but did not
 * wake at once, each in one of these states (league_fork_and_run), woken
 * once the league has run wake_after_ns and:
 *   LATER_HELD  the launch's waiter no longer spins: a short league left
 *               its CPU to it (workers_woken_at_once);
 *   LATER_WAKE  at once;
 *   LATER_NONE  woken, or not sleeping.
 * Posted, not held back unposted: a sleeping worker looks for posted jobs
 * every few milliseconds (pool.c), so teams that wait for each other still
 * progress while the forking thread runs one of them. The forking thread's
 * own: no other thread reads it. */
enum { LATER_NONE, LATER_WAKE, LATER_HELD };
struct deferred_wake {
  struct rt_worker **workers;
  unsigned char *wake_later;
  int got;
  int pending; /* workers not LATER_NONE */
  int held;    /* of them LATER_HELD */
  int64_t start;
  uint32_t teams_run; /* by the forking thread, while workers are pending */
  int64_t wake_after_ns;
  int64_t woken; /* when workers were first woken, 0 while none is */
};

/* The forking thread, between two teams: wakes the posted workers that are
 * due. */
static void wake_deferred_if_due(struct deferred_wake *dw)
{
  if (!dw || !dw->pending)
    return;
  /* The clock after each of the first teams (a long team wakes the workers
   * after itself), then after every fourth: reading it after each of
   * hundreds of short teams was 4% of a GPU-shaped league. */
  dw->teams_run++;
  if (dw->teams_run > 4 && (dw->teams_run & 3) != 0)
    return;
  int waiter_spins = rt_launch_waiter_spins();
  if (waiter_spins && dw->held == dw->pending)
    return; /* only held ones, for a waiter that still spins: no clock */
  int64_t now = rt_now_ns();
  if (now - dw->start < dw->wake_after_ns)
    return;
  for (int w = 0; w < dw->got; w++) {
    if (dw->wake_later[w] == LATER_NONE || (dw->wake_later[w] == LATER_HELD && waiter_spins))
      continue;
    if (!dw->woken)
      dw->woken = now;
    rt_pool_wake(dw->workers[w]);
    dw->held -= dw->wake_later[w] == LATER_HELD;
    dw->pending--;
    dw->wake_later[w] = LATER_NONE;
  }
}

/* Each runner (the forking thread and every worker that starts) claims
 * teams until none is left: teams run at once when the workers get CPUs,
 * and a small league finishes on the forking thread alone when they do not
 * (their jobs are then revoked). `dw`: the forking thread's deferred
 * wakes, NULL on workers. */
static int32_t league_runner(struct league_run *lr, struct deferred_wake *dw)
{
  struct rt_team t;
  if (rt_team_init(&t, 1, NULL) != 0) {
    rt_error("teams: cannot initialise a team's lock; this thread runs no teams");
    return 0;
  }
  /* Each team's initial thread is thread 0 of its team. */
  int32_t gtid = rt_gtid(), btid = 0;
  uint64_t argv[SIMDEV_MAX_ARGS];
  argv[0] = (uint64_t)(uintptr_t)&gtid;
  argv[1] = (uint64_t)(uintptr_t)&btid;
  if (lr->argc > 0)
    memcpy(argv + 2, lr->args, (size_t)lr->argc * sizeof(uint64_t));
  int32_t first, n, ran = 0;
  while ((n = claim_teams(lr, &first)) > 0) {
    for (int32_t i = first; i < first + n; i++) {
      wake_deferred_if_due(dw);
      run_team(lr, &t, i, argv);
    }
    ran += n;
  }
  rt_team_destroy(&t);
  return ran;
}

static void league_worker(void *arg)
{
  (void)league_runner(arg, NULL);
}

static void league_worker_done(void *arg)
{
  struct league_run *lr = arg;
  rt_count_down(&lr->running);
}

/* Each teams region's history, by its outlined function, kept by the
 * threads that fork leagues: a hint for the next launch (a wrong guess
 * costs time, never correctness), so its fields are relaxed atomics and
 * collisions overwrite.
 *   ns       how long the league would take on one thread: the forking
 *            thread's own time per team, times the teams (a worker's time
 *            may include waits for a CPU);
 *   wake_ns  how long its woken workers took to begin, a moving average.
 * ns is not the league's wall time: workers woken for a short league made
 * it longer than the forking thread alone took (on 2 CPUs, beside the
 * host's spinning thread: 128 teams of 32 elements, 45 us with a worker
 * against 18-23 us without), and that time then said to wake them again at
 * every launch. */
#define HISTORY_SLOTS 64
static struct {
  _Atomic uintptr_t fn;
  _Atomic int64_t ns;
  _Atomic int64_t wake_ns;
} league_history[HISTORY_SLOTS];

static unsigned history_slot(const void *fn)
{
  uintptr_t h = (uintptr_t)fn;
  return (unsigned)((h ^ (h >> 6) ^ (h >> 12)) % HISTORY_SLOTS);
}

/* *ns and *wake_ns -1 when this region has no history. */
static void history_get(const void *fn, int64_t *ns, int64_t *wake_ns)
{
  unsigned i = history_slot(fn);
  *ns = *wake_ns = -1;
  if (atomic_load_explicit(&league_history[i].fn, memory_order_relaxed) != (uintptr_t)fn)
    return;
  *ns = atomic_load_explicit(&league_history[i].ns, memory_order_relaxed);
  *wake_ns = atomic_load_explicit(&league_history[i].wake_ns, memory_order_relaxed);
}

static void history_put(const void *fn, int64_t ns, int64_t wake_ns)
{
  unsigned i = history_slot(fn);
  atomic_store_explicit(&league_history[i].fn, (uintptr_t)fn, memory_order_relaxed);
  atomic_store_explicit(&league_history[i].ns, ns, memory_order_relaxed);
  atomic_store_explicit(&league_history[i].wake_ns, wake_ns, memory_order_relaxed);
}

static int64_t wake_worth_ns(int64_t wake_ns)
{
  int64_t v = 2 * wake_ns;
  return v < WAKE_WORTH_MIN_NS ? WAKE_WORTH_MIN_NS : v > WAKE_WORTH_MAX_NS ? WAKE_WORTH_MAX_NS : v;
}

/* How long the woken workers were missing, judged by the forking thread
 * alone (no word shared with them, nothing for Helgrind to see): the time
 * they had, from their wake to the end of the forking thread's teams, less
 * what their share of the teams took at its rate. With none begun, the
 * whole time: a wake takes at least that long. */
static int64_t wake_latency_sample(int64_t had_ns, int32_t their_teams, int workers,
                                   int64_t per_team_ns)
{
  int64_t missing = had_ns - (int64_t)their_teams * per_team_ns / workers;
  return missing > 0 ? missing : 0;
}

/* Teams shorter than this (the region's history) leave the CPU of a
 * spinning launch waiter to it: the workers held back are woken within a
 * few teams of the waiter going to sleep. Longer ones wake every worker at
 * once, as a held worker would wait a whole team. */
#define HOLD_TEAM_MAX_NS WAKE_WORTH_MIN_NS

/* How many of `got` workers are woken at once: all, or, while the launch's
 * waiter spins on one of the CPUs (rt_launch_waiter_spins) and the
 * region's teams are short, those left beside it and the forking thread.
 * On 2 CPUs a second runner beside the spinning host thread made 256 teams
 * of 16 elements slower than one runner (median of 8 runs each: 47 us a
 * launch against 37 us), the three threads taking turns on two CPUs. */
static int workers_woken_at_once(const struct league_run *lr, int got, int64_t last)
{
  if (last < 0 || last / lr->league.nteams >= HOLD_TEAM_MAX_NS || !rt_launch_waiter_spins())
    return got;
  int32_t left = rt_caps()->ncpus - 2;
  return left < 0 ? 0 : left < got ? left : got;
}

/* The forking thread's share of a league: posts a job to each worker, wakes
 * the sleeping ones at once unless this region took under wake_worth_ns()
 * on one thread last time (then only once the league has run that long)
 * or they are held for a spinning waiter (workers_woken_at_once; then once
 * it sleeps), runs teams until none is left, takes back the jobs no worker
 * began, waits for the rest, and keeps the region's history. */
static void league_fork_and_run(struct league_run *lr, struct rt_worker **workers,
                                unsigned char *wake_later, int got)
{
  int64_t last, wake_ns;
  history_get(lr->microtask, &last, &wake_ns);
  int64_t worth_ns = wake_worth_ns(wake_ns);
  int defer = last >= 0 && last < worth_ns;
  struct deferred_wake dw = {workers, wake_later, got, 0, 0, rt_now_ns(), 0, defer ? worth_ns : 0, 0};
  int at_once = workers_woken_at_once(lr, got, last);
  lr->runners = 1 + got;
  atomic_store(&lr->running, (uint32_t)got);
  for (int i = 0; i < got; i++) {
    wake_later[i] = LATER_NONE;
    if (!rt_pool_post(workers[i], league_worker, league_worker_done, lr))
      continue; /* a spinning worker takes it */
    if (i >= at_once) {
      wake_later[i] = LATER_HELD;
      dw.held++;
      dw.pending++;
    } else if (defer) {
      wake_later[i] = LATER_WAKE;
      dw.pending++;
    } else {
      dw.woken = dw.start;
      rt_pool_wake(workers[i]);
    }
  }
  int32_t ran = league_runner(lr, &dw);
  int64_t end = rt_now_ns();
  /* Every team is claimed: a worker that has not begun has nothing to do. */
  for (int i = 0; i < got; i++)
    if (rt_pool_revoke(workers[i]))
      rt_count_down(&lr->running);
  rt_count_await_zero(&lr->running);
  rt_pool_release(workers, got);
  if (ran == 0) /* the workers ran every team: no rate of the forking thread's */
    return;
  int64_t per_team = (end - dw.start) / ran;
  if (dw.woken != 0) {
    int64_t sample = wake_latency_sample(end - dw.woken, lr->league.nteams - ran, got, per_team);
    wake_ns = wake_ns < 0 ? sample : wake_ns + (sample - wake_ns) / 4;
  }
  history_put(lr->microtask, per_team * lr->league.nteams, wake_ns);
}

EXPORT void __kmpc_fork_teams(ident_t *loc, int32_t argc, kmpc_micro microtask, ...)
{
  char where[256];
  if (argc < 0 || argc > MAX_USER_ARGS) {
    rt_error("teams at %s: %d shared arguments, the most supported is %d; region skipped",
             rt_loc(loc, where, sizeof(where)), argc, MAX_USER_ARGS);
    return;
  }
  struct rt_member *m = rt_current();
  if (m->team->league || m->team->level > 0) {
    rt_error("teams at %s: a teams construct must not be nested in a teams or parallel "
             "region; region skipped",
             rt_loc(loc, where, sizeof(where)));
    return;
  }
  uint64_t args[MAX_USER_ARGS];
  va_list ap;
  va_start(ap, microtask);
  for (int i = 0; i < argc; i++)
    args[i] = (uint64_t)(uintptr_t)va_arg(ap, void *);
  va_end(ap);

  struct league_run lr;
  memset(&lr, 0, sizeof(lr));
  int32_t nt = m->push_num_teams > 0 ? m->push_num_teams : m->launch_num_teams;
  int32_t tl = m->push_thread_limit > 0 ? m->push_thread_limit : m->launch_thread_limit;
  m->push_num_teams = m->push_thread_limit = 0;
  lr.league.nteams = rt_pick_num_teams(nt);
  int32_t runners = rt_pick_runners(lr.league.nteams, tl);
  rt_pick_widths(tl, runners, &lr.league.thread_limit, &lr.league.default_threads,
                 &lr.league.default_adaptive);
  lr.microtask = (void *)microtask;
  lr.argc = argc;
  lr.args = args;

  struct rt_worker *small[16];
  unsigned char small_flags[16];
  struct rt_worker **workers = small;
  unsigned char *wake_later = small_flags;
  int want = runners - 1;
  if (want > 16) {
    workers = malloc((size_t)want * (sizeof(*workers) + 1));
    if (workers) {
      wake_later = (unsigned char *)(workers + want);
    } else {
      workers = small;
      want = 16;
    }
  }
  int got = want > 0 ? rt_pool_acquire(want, workers) : 0;
  league_fork_and_run(&lr, workers, wake_later, got);
  if (workers != small)
    free(workers);
}
