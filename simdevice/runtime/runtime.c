/*
 * runtime.c - the simdevice device runtime's caps, the per-thread execution
 * context and the team life cycle; the launch API of simdev_rt.h is in
 * kernel.c.
 *
 * simdevice's device process loads this library under the SONAME
 * libomp.so.5 before any device image, so the images' `__kmpc_*`/`omp_*`
 * imports (libomp's host ABI, node VERSION) bind here.
 *
 * Caps and defaults (read once, at the first use, by caps_init: the
 * runtime's only reader of the environment):
 *   SIMDEVICE_MAX_TEAMS    most teams a `teams` construct gets     default 1024
 *   SIMDEVICE_MAX_THREADS  most threads a team's parallel gets     default 64
 *   OMP_THREAD_LIMIT       lowers that cap (a team is a contention group)
 *   SIMDEVICE_DEFAULT_TEAMS    teams of a `teams` without num_teams
 *                          default the CPUs, within the cap
 *   SIMDEVICE_DEFAULT_THREADS  threads of a parallel region without
 *                          num_threads or thread_limit (below)
 *                          (simtarget-check sets both, to max(CPUs, 4)
 *                          and 2, so that races show as on a GPU: issue 32.
 *                          Not the default: 4 threads on 2 CPUs made small
 *                          launches 10-30x slower, issue 29)
 *   (each accepted in 1..1024; another value is reported and ignored)
 *   SIMDEVICE_SPIN_US      how long an idle worker or a joining thread
 *                          spins before it sleeps (wait.c)  default 200,
 *                          0..1000000, 0: sleep at once
 *   CPUs                   the CPUs the process may run on (sched_getaffinity)
 *   thread limit           thread_limit if given, else the cap
 *   thread budget          max(2 x CPUs, 16) threads in a launch
 *   league runners         min(num_teams, CPUs) threads run a league's
 *                          teams, each team in turn on one of them;
 *                          with a thread_limit L within the budget, at most
 *                          budget / L of them
 *   default threads of a parallel region without num_threads:
 *                          a thread_limit within the budget, as LLVM's
 *                          runtime gives it; else SIMDEVICE_DEFAULT_THREADS
 *                          or max(1, CPUs / runners) (the league fills the
 *                          CPUs once: no oversubscription), at most budget /
 *                          runners and the thread limit
 *   pool workers           at most the budget - 1, so a launch (its server
 *                          thread and the workers) never has more threads
 *                          than the budget, whatever num_teams and
 *                          thread_limit say (a GPU-sized league of 256 teams
 *                          of 1024 threads once made thousands of threads)
 * Parallel regions get the workers the pool has free, never waiting for one:
 * a region's threads all run at once (barriers need them), and a team never
 * waits for a worker another team holds. The pool keeps its threads for
 * later launches.
 *
 * The device number (omp_get_device_num) is not an environment setting: the
 * server passes the number the plugin gave its process
 * (simdev_rt_set_device_num), before it runs any kernel.
 *
 * Locks: the caps are written once under a pthread_once (caps_init is the
 * runtime's only reader of the environment); the device number is an atomic;
 * everything else here is thread-local (the current rt_member).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_internal.h"
#include "simdev_rt.h"
#include "valgrind_hints.h"

#define CAP_LIMIT 1024
#define DEFAULT_MAX_TEAMS CAP_LIMIT
#define DEFAULT_MAX_THREADS 64
/* The most threads a launch may have in all, on few CPUs: an explicit
 * thread_limit or num_threads up to this is honoured as LLVM's runtime
 * honours it (a lesson's thread_limit(8) gets 8 threads on 2 CPUs). */
#define MIN_THREAD_BUDGET 16
#define DEFAULT_SPIN_US 200 /* why this long: wait.c */

static struct rt_caps caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

HIDDEN void rt_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("simdevice runtime error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int32_t env_int(const char *name, int32_t dflt, int32_t lo, int32_t hi)
{
  const char *s = getenv(name);
  if (!s || !*s)
    return dflt;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi) {
    rt_error("%s=\"%s\" is not an integer in %d..%d; using %d", name, s, lo, hi, dflt);
    return dflt;
  }
  return (int32_t)v;
}

/* The CPUs this process may run on (a taskset or a container's cpuset
 * counts, not the machine's); the online CPUs if that cannot be read. */
static long usable_cpus(void)
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  return sysconf(_SC_NPROCESSORS_ONLN);
}

static void caps_init(void)
{
  long n = usable_cpus();
  caps.ncpus = n < 1 ? 1 : (n > CAP_LIMIT ? CAP_LIMIT : (int32_t)n);
  caps.max_workers = (2 * caps.ncpus > MIN_THREAD_BUDGET ? 2 * caps.ncpus : MIN_THREAD_BUDGET) - 1;
  caps.max_teams = env_int("SIMDEVICE_MAX_TEAMS", DEFAULT_MAX_TEAMS, 1, CAP_LIMIT);
  caps.max_threads = env_int("SIMDEVICE_MAX_THREADS", DEFAULT_MAX_THREADS, 1, CAP_LIMIT);
  int32_t omp_limit = env_int("OMP_THREAD_LIMIT", CAP_LIMIT, 1, INT32_MAX);
  if (omp_limit < caps.max_threads)
    caps.max_threads = omp_limit;
  caps.default_teams = env_int("SIMDEVICE_DEFAULT_TEAMS", caps.ncpus, 1, CAP_LIMIT);
  caps.default_threads = env_int("SIMDEVICE_DEFAULT_THREADS", 0, 1, CAP_LIMIT);
  caps.spin_ns = (int64_t)env_int("SIMDEVICE_SPIN_US", DEFAULT_SPIN_US, 0, 1000000) * 1000;
}

static _Atomic int32_t device_num;

void simdev_rt_set_device_num(int32_t num) { atomic_store_explicit(&device_num, num, memory_order_relaxed); }

HIDDEN int32_t rt_device_num(void) { return atomic_load_explicit(&device_num, memory_order_relaxed); }

HIDDEN const struct rt_caps *rt_caps(void)
{
  pthread_once(&caps_once, caps_init);
  return &caps;
}

static int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

HIDDEN int32_t rt_pick_num_teams(int32_t requested)
{
  const struct rt_caps *c = rt_caps();
  if (requested <= 0)
    requested = c->default_teams;
  return clamp(requested, 1, c->max_teams);
}

/* The pickers below read the caps once each: rt_caps() is a pthread_once
 * call, and a launch picks three widths (rt_pick_widths). */
static int32_t thread_limit_of(const struct rt_caps *c, int32_t requested)
{
  return requested <= 0 ? c->max_threads : clamp(requested, 1, c->max_threads);
}

/* Whether a team width `requested` by a thread_limit clause is honoured:
 * given, and within the launch's thread budget. */
static int width_honoured(const struct rt_caps *c, int32_t requested)
{
  return requested > 0 && thread_limit_of(c, requested) <= c->max_workers + 1;
}

HIDDEN int32_t rt_pick_runners(int32_t nteams, int32_t requested_limit)
{
  const struct rt_caps *c = rt_caps();
  int32_t n = c->ncpus;
  if (width_honoured(c, requested_limit)) {
    /* fewer teams at once, each as wide as asked, all within the budget */
    int32_t fit = (c->max_workers + 1) / thread_limit_of(c, requested_limit);
    if (fit < n)
      n = fit < 1 ? 1 : fit;
  }
  return nteams < n ? (nteams < 1 ? 1 : nteams) : n;
}

static int32_t default_threads_of(const struct rt_caps *c, int32_t requested, int32_t runners)
{
  int32_t limit = thread_limit_of(c, requested);
  if (width_honoured(c, requested))
    return limit;
  if (runners < 1)
    runners = 1;
  int32_t want = c->default_threads;
  if (want <= 0) {
    want = c->ncpus / runners; /* the league fills the CPUs once */
    if (want < 1)
      want = 1;
  }
  int32_t share = (c->max_workers + 1) / runners; /* within the budget */
  if (limit > share)
    limit = share;
  return clamp(want, 1, limit);
}

HIDDEN void rt_pick_widths(int32_t requested, int32_t runners, int32_t *thread_limit,
                           int32_t *default_threads, int32_t *default_adaptive)
{
  const struct rt_caps *c = rt_caps();
  *thread_limit = thread_limit_of(c, requested);
  *default_threads = default_threads_of(c, requested, runners);
  *default_adaptive = c->default_threads <= 0;
}

void simdev_rt_limits(int32_t *max_teams, int32_t *max_threads)
{
  const struct rt_caps *c = rt_caps();
  if (max_teams)
    *max_teams = c->max_teams;
  if (max_threads)
    *max_threads = c->max_threads;
}

HIDDEN const char *rt_loc(const ident_t *loc, char *buf, int len)
{
  /* psource: ";file;function;line;column;;" */
  if (!loc || !loc->psource) {
    snprintf(buf, (size_t)len, "unknown location");
    return buf;
  }
  const char *p = loc->psource;
  const char *fields[4] = {0};
  int nf = 0;
  for (const char *q = p; *q && nf < 4; q++)
    if (*q == ';')
      fields[nf++] = q + 1;
  if (nf < 4) {
    snprintf(buf, (size_t)len, "%s", p);
    return buf;
  }
  int file_len = (int)(fields[1] - fields[0] - 1);
  int line_len = (int)(strchrnul(fields[3], ';') - fields[3]);
  int func_len = (int)(fields[2] - fields[1] - 1);
  snprintf(buf, (size_t)len, "%.*s:%.*s (in %.*s)", file_len, fields[0], line_len, fields[3],
           func_len, fields[1]);
  return buf;
}

/* ------------------------------------------------------------ context */

/* (The default TLS model: initial-exec would save more, but a dlopen'ed
 * library cannot count on static TLS space; under valgrind the load fails.
 * The Makefile asks for TLS descriptors instead, and the thread-local data
 * stays small (pointers; the contexts themselves are on the heap), so that
 * glibc places it in its optional static TLS at dlopen when there is room
 * and a descriptor is then an offset. The contexts stay here, not behind a
 * pthread key: in the in-process mode (usm.c) this library's libc is a
 * second one in its own link namespace, whose keys index the same
 * per-thread array as the program's libc, and a key of ours overwrote
 * libomp's thread id.) */
HIDDEN __thread struct rt_member *rt_cur;
static _Atomic int32_t next_gtid;
static __thread int32_t my_gtid = -1;

/* The context of a thread that runs device code with no launch begun (a
 * test program, an image's constructor, or a stray call): team 0 of 1,
 * like a plain target. Made at its first use and freed when the thread
 * exits (glibc's thread-exit destructors, as for C++ thread_local). */
struct fallback_context {
  struct rt_team team;
  struct rt_member member;
};
static __thread struct fallback_context *fallback;

extern int __cxa_thread_atexit_impl(void (*dtor)(void *), void *obj, void *dso_symbol);
extern void *__dso_handle;

static void fallback_free(void *p)
{
  struct fallback_context *f = p;
  if (rt_cur == &f->member)
    rt_cur = NULL;
  rt_team_destroy(&f->team);
  free(f);
  fallback = NULL;
}

HIDDEN int32_t rt_gtid(void)
{
  if (my_gtid < 0)
    my_gtid = atomic_fetch_add(&next_gtid, 1);
  return my_gtid;
}

/* rt_team_init of a team of one whose lock and condition variable are
 * already initialised and free: everything else is set as there. */
HIDDEN void rt_team_reinit_keeping_sync(struct rt_team *t)
{
  memset(t, 0, offsetof(struct rt_team, lock));
  char *rest = (char *)&t->cond + sizeof t->cond;
  memset(rest, 0, (size_t)((char *)t->dispatch - rest));
  t->nthreads = 1;
  for (int i = 0; i < RT_DISPATCH_SLOTS; i++)
    t->dispatch[i].seq = -1;
}

/* The part of a launch context that does not depend on the launch's
 * values. `sync_ready`: the team's lock and condition variable exist
 * already. */
HIDDEN void rt_launch_context_reset(struct rt_team *t, struct rt_member *m, int sync_ready)
{
  /* An initial team can always be set up: rt_team_init on a team of one
   * only fails if pthread_mutex_init/cond_init fail, which they do not for
   * default attributes on Linux. */
  if (sync_ready)
    rt_team_reinit_keeping_sync(t);
  else if (rt_team_init(t, 1, NULL) != 0)
    rt_error("cannot initialise the initial team's lock");
  rt_member_init(m, t, 0);
}

/* The launch's own values, on a context rt_launch_context_reset prepared. */
HIDDEN void rt_launch_context_set(struct rt_team *t, struct rt_member *m, int32_t num_teams,
                                  int32_t thread_limit)
{
  rt_pick_widths(thread_limit, 1, &t->thread_limit, &t->default_threads, &t->default_adaptive);
  m->launch_num_teams = num_teams;
  m->launch_thread_limit = thread_limit;
}

static void launch_context_init(struct rt_team *t, struct rt_member *m, int32_t num_teams,
                                int32_t thread_limit, int sync_ready)
{
  rt_launch_context_reset(t, m, sync_ready);
  rt_launch_context_set(t, m, num_teams, thread_limit);
}

/* Without memory for its own context, a thread outside a launch gets one
 * shared by every such thread (said once): racy if several use it at once,
 * but the device code goes on. */
static struct fallback_context shared_context;

static void shared_context_init(void)
{
  launch_context_init(&shared_context.team, &shared_context.member, 0, 0, 0);
}

static struct rt_member *out_of_memory_context(void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  static _Atomic int said;
  pthread_once(&once, shared_context_init);
  if (!atomic_exchange(&said, 1))
    rt_error("no memory for the context of a thread that runs device code outside a "
             "launch; such threads share one");
  return &shared_context.member;
}

/* rt_current's slow path: this thread has no member set, so it gets its
 * fallback context (made now if it has none). */
HIDDEN struct rt_member *rt_current_made(void)
{
  if (!fallback) {
    struct fallback_context *f = calloc(1, sizeof(*f));
    if (!f)
      return rt_cur = out_of_memory_context();
    launch_context_init(&f->team, &f->member, 0, 0, 0);
    /* Without the destructor (no memory for its record) the context lives
     * until the process ends: a leak of one context, not an error. */
    (void)__cxa_thread_atexit_impl(fallback_free, f, &__dso_handle);
    fallback = f;
  }
  rt_cur = &fallback->member;
  return rt_cur;
}

/* ------------------------------------------------------------ teams */

/* Whether zero bytes are a mutex and a condition variable with default
 * attributes (glibc's initializers are): then a zeroed team has its lock
 * and condition variable ready, and the init calls, a tenth of a
 * GPU-shaped league's work (hundreds of one-thread teams, each with a
 * parallel region), are skipped. Not under Valgrind: DRD learns of a
 * mutex from its init call ("not a mutex" otherwise). */
static int zero_is_default_sync(void)
{
  static const pthread_mutex_t mutex_default = PTHREAD_MUTEX_INITIALIZER;
  static const pthread_cond_t cond_default = PTHREAD_COND_INITIALIZER;
  static const char zeros[sizeof(pthread_mutex_t) + sizeof(pthread_cond_t)];
  return memcmp(&mutex_default, zeros, sizeof mutex_default) == 0 &&
         memcmp(&cond_default, zeros, sizeof cond_default) == 0;
}

static int zero_sync_ready = -1; /* zero_is_default_sync(), set at load */

__attribute__((constructor)) static void sync_defaults_check(void)
{
  zero_sync_ready = zero_is_default_sync() && !valgrind_hints_on;
}

HIDDEN int rt_team_init(struct rt_team *t, int32_t nthreads, struct rt_member *forker)
{
  memset(t, 0, offsetof(struct rt_team, dispatch));
  if (zero_sync_ready != 1) {
    int rc = pthread_mutex_init(&t->lock, NULL);
    if (rc)
      return rc;
    rc = pthread_cond_init(&t->cond, NULL);
    if (rc) {
      pthread_mutex_destroy(&t->lock);
      return rc;
    }
  }
  t->nthreads = nthreads;
  for (int i = 0; i < RT_DISPATCH_SLOTS; i++)
    t->dispatch[i].seq = -1;
  if (forker) {
    struct rt_team *p = forker->team;
    t->parent = p;
    t->parent_tid = forker->tid;
    t->level = p->level + 1;
    t->active_level = p->active_level + (nthreads > 1);
    t->team_num = p->team_num;
    t->league = p->league;
    t->thread_limit = p->thread_limit;
    t->default_threads = p->default_threads;
    t->default_adaptive = p->default_adaptive;
  }
  return 0;
}

HIDDEN void rt_team_destroy(struct rt_team *t)
{
  /* A lock and condition variable that began as zero bytes hold nothing to
   * free (zero_sync_ready), and every waiter has returned when a team ends:
   * destroying them cost 3% of a GPU-shaped league (a parallel region per
   * team). Under Valgrind they were made by their init calls, and DRD and
   * Helgrind track their destruction. */
  if (zero_sync_ready == 1)
    return;
  pthread_cond_destroy(&t->cond);
  pthread_mutex_destroy(&t->lock);
}

HIDDEN void rt_member_init(struct rt_member *m, struct rt_team *t, int32_t tid)
{
  memset(m, 0, sizeof(*m));
  m->team = t;
  m->tid = tid;
  m->implicit_task.team = t;
  m->implicit_task.refs = 1;
  m->task = &m->implicit_task;
}
