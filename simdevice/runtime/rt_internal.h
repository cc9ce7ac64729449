/*
 * rt_internal.h - internal contracts of the simdevice device runtime
 * (libomp.so.5 inside the device process).
 *
 * The execution model:
 *   launch   one kernel call on a server thread (simdev_rt_kernel_begin/end);
 *   league   the teams of one `teams` construct (__kmpc_fork_teams);
 *   rt_team  the threads of one parallel region, or a league team's initial
 *            thread alone (level 0);
 *   rt_member one thread's implicit task in an rt_team (its thread number,
 *            its private worksharing counters, its current task).
 * The calling thread's rt_member is in the thread-local `rt_cur`; nothing
 * about a launch is global, so launches on different server threads run
 * side by side. Locks: each rt_team's `lock` guards its barrier, task queue
 * and dispatch slots; join counts (a parallel team's `workers_running`, a
 * league's `running`) are atomics (wait.c: spin, then futex); the pool has
 * its own lock for its lists and per-worker atomic job words (pool.c). These are pthread mutexes, and
 * the functions that need one held (named *_locked) start with
 * LOCK_ASSERT_HELD (lock_check.h: debug builds abort naming the function).
 * The futex word lock (rt_word_lock) is only for locks that live in
 * compiler-owned storage (critical, omp_lock_t, reductions), which has no
 * room for an owner. Locks are never nested except team lock -> nothing
 * (tasks run with no lock held).
 */
#ifndef SIMDEVICE_RT_INTERNAL_H
#define SIMDEVICE_RT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define HIDDEN __attribute__((visibility("hidden")))
#define UNUSED __attribute__((unused))
#define EXPORT __attribute__((visibility("default")))

/* libomp's source-location descriptor; psource is ";file;func;line;col;;". */
typedef struct ident {
  int32_t reserved_1;
  int32_t flags;
  int32_t reserved_2;
  int32_t reserved_3;
  const char *psource;
} ident_t;

/* kmp_critical_name: 32 zero-initialised bytes owned by the device image. */
typedef int32_t kmp_critical_name[8];

/* ------------------------------------------------------------ caps */
struct rt_caps {
  int32_t max_teams;     /* SIMDEVICE_MAX_TEAMS */
  int32_t max_threads;   /* SIMDEVICE_MAX_THREADS (per team), within OMP_THREAD_LIMIT */
  int32_t default_teams; /* SIMDEVICE_DEFAULT_TEAMS, else max(ncpus, 4): teams without num_teams */
  int32_t default_threads; /* SIMDEVICE_DEFAULT_THREADS; 0: not set (rt_pick_widths) */
  int32_t ncpus;         /* CPUs the process may use (sched_getaffinity), >= 1 */
  int32_t max_workers;   /* most pool threads: max(2 * ncpus, 16) - 1 (pool.c) */
  int64_t spin_ns;       /* SIMDEVICE_SPIN_US: how long a waiter spins (wait.c) */
};
HIDDEN const struct rt_caps *rt_caps(void);
/* This device's number (simdev_rt_set_device_num; 0 until set). */
HIDDEN int32_t rt_device_num(void);
/* The number of teams actually used for a request (<= 0: not given). */
HIDDEN int32_t rt_pick_num_teams(int32_t requested);
/* Threads that run a league of nteams teams at once (the rest run in turn). */
HIDDEN int32_t rt_pick_runners(int32_t nteams, int32_t requested_limit);
/* A team's widths for a thread_limit request (<= 0: not given) when
 * `runners` teams run at once: the most threads a parallel region may use,
 * the threads of one without num_threads, and whether that number is the
 * runtime's own choice (no SIMDEVICE_DEFAULT_THREADS), which dyn-var may
 * narrow (adaptive_width.c). A thread_limit is an upper bound, so a width
 * taken from it is the runtime's choice too: 256 teams of thread_limit(16)
 * each woke 15 workers on 2 CPUs (80 ms a launch; LLVM 14: 5 us). */
HIDDEN void rt_pick_widths(int32_t requested, int32_t runners, int32_t *thread_limit,
                           int32_t *default_threads, int32_t *default_adaptive);

/* ------------------------------------------------------------ dyn-var */
/* adaptive_width.c: omp_get_dynamic(); the width of a region at `site`
 * (its outlined function) that `want` threads would run, after dyn-var
 * (1 if it did too little work last time to share it out, fewer beside a
 * spinning launch waiter); and what its serial work was (in ns) when it
 * ran on `threads`. */
HIDDEN int rt_dynamic_threads(void);
HIDDEN int rt_width_adapts(void); /* dyn-var on, and not under Valgrind */
HIDDEN int32_t rt_width_adapted(const void *site, int32_t want);
HIDDEN void rt_width_record(const void *site, int64_t work_ns, int threads);
/* Whether this run of a region narrowed for being too small is timed (and
 * recorded): about 1 in 16, at random, so that one that grew widens again
 * (the calling thread's own state). */
HIDDEN int rt_width_time_narrow_run(void);

/* ------------------------------------------------------------ locks */
/* A futex mutex in one 32-bit word (0 free, 1 held, 2 held with waiters);
 * it needs no init beyond zeroing and no destroy, so it can live inside
 * compiler-owned storage (kmp_critical_name, omp_lock_t). */
HIDDEN void rt_word_lock(_Atomic int32_t *w);
HIDDEN int rt_word_trylock(_Atomic int32_t *w);
HIDDEN void rt_word_unlock(_Atomic int32_t *w);

/* ------------------------------------------------------------ waiting */
/* 1 when the machine has more runnable threads than CPUs now: waiters
 * sleep instead of spinning (common/cpu_load.h; wait.c). */
HIDDEN int rt_oversubscribed(void);
/* Whether the thread that waits for this thread's launch spins now on a
 * CPU of this machine (the host thread of a synchronous launch, before it
 * sleeps): that CPU is then not the device's. 0 where no waiter was set
 * (rt_set_launch_waiter: `sleeping` reads 0 while it spins). wait.c. */
HIDDEN void rt_set_launch_waiter(const _Atomic uint32_t *sleeping);
HIDDEN int rt_launch_waiter_spins(void);
/* CLOCK_MONOTONIC in nanoseconds (vDSO: no system call; wait.c). */
HIDDEN int64_t rt_now_ns(void);
/* Spin for the spin time (if `spin`), then sleep (wait.c). rt_await_change
 * returns 1 once *word != old, 0 when timeout_ns (> 0) passed first;
 * whoever changes the word (rt_publish: +1) then calls rt_wake_if_sleeping
 * with the waiter's `sleeping` flag. */
HIDDEN int rt_await_change(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleeping,
                           int spin, int64_t timeout_ns);
HIDDEN void rt_publish(_Atomic uint32_t *word);
HIDDEN void rt_wake_if_sleeping(_Atomic uint32_t *word, _Atomic uint32_t *sleeping);
/* A count of outstanding workers (set before they start): each calls
 * rt_count_down once; rt_count_await_zero returns when all have. */
HIDDEN void rt_count_await_zero(_Atomic uint32_t *count);
HIDDEN void rt_count_down(_Atomic uint32_t *count);

/* ------------------------------------------------------------ structures */
struct rt_task;
struct rt_taskgroup;

struct rt_league {
  int32_t nteams;
  int32_t thread_limit;
  int32_t default_threads;
  int32_t default_adaptive;
};

/* Dispatch (dynamic/guided/ordered) loop state shared by a team. Slots are
 * used round-robin by loop sequence number so `nowait` loops can overlap. */
#define RT_DISPATCH_SLOTS 8
struct rt_dispatch_slot {
  int64_t seq;             /* loop sequence number served; -1 when never used */
  int32_t done;            /* threads that have finished this loop */
  int32_t kind;            /* enum rt_sched_kind */
  uint64_t trip;           /* iterations */
  uint64_t chunk;
  int64_t lb;              /* first iteration value (two's complement) */
  int64_t st;              /* step */
  _Atomic uint64_t next;   /* next unclaimed iteration index (dynamic/guided) */
  _Atomic uint64_t ordered_next; /* next iteration allowed into `ordered` */
};

enum rt_sched_kind { RT_SCHED_STATIC, RT_SCHED_STATIC_CHUNKED, RT_SCHED_DYNAMIC, RT_SCHED_GUIDED };

struct rt_team {
  int32_t nthreads;
  int32_t level;          /* parallel nesting level (0: team's initial region) */
  int32_t active_level;   /* enclosing parallel regions with > 1 thread */
  int32_t team_num;       /* number in the league */
  int32_t thread_limit;   /* most threads a parallel region may use */
  int32_t default_threads; /* threads of a parallel without num_threads */
  int32_t default_adaptive; /* default_threads is the runtime's choice
                               (rt_pick_widths) */
  int32_t parent_tid;     /* thread number of the forking thread in `parent` */
  struct rt_team *parent;
  const struct rt_league *league; /* NULL outside a teams construct: 1 team */

  pthread_mutex_t lock;
  pthread_cond_t cond;
  /* barrier */
  int32_t bar_arrived;
  uint32_t bar_gen;
  /* with measure_forker_waits, thread 0 adds its time asleep in barriers
   * (adaptive_width.c leaves it out of the region's work) */
  int32_t measure_forker_waits;
  int64_t forker_wait_ns;
  /* explicit tasks queued for this team's threads */
  struct rt_task *queue_head, *queue_tail;
  int64_t tasks_pending;  /* queued + running */
  /* single / copyprivate */
  _Atomic int64_t single_count;
  void *copyprivate_data;
  /* reductions with the task modifier: the data all threads share (slot 0
   * parallel, 1 worksharing; 1 is "being made") and how many threads have
   * finished theirs (taskred.c) */
  void *_Atomic task_reduction[2];
  _Atomic int32_t task_reduction_done[2];
  /* fork/join */
  _Atomic uint32_t workers_running; /* rt_count_down by each worker */
  _Atomic int32_t next_tid;
  void *microtask;
  int32_t argc;
  const uint64_t *args;
  /* worksharing; last, as team init zeroes only what is before it: a loop
   * sets every field of the slot it claims (loop.c), and `seq` -1 says a
   * slot never served one (a team of a GPU-shaped league zeroed 450 bytes
   * it never used) */
  struct rt_dispatch_slot dispatch[RT_DISPATCH_SLOTS];
};

/* The calling thread's private dispatch state for the current loop. */
struct rt_dispatch_private {
  struct rt_dispatch_slot *slot;
  uint64_t static_chunk;   /* next chunk number for static kinds */
  int finished;            /* next() already returned 0 */
  uint64_t cur_iter;       /* iteration index being executed (ordered) */
  int ordered_bumped;      /* the current iteration left its ordered region */
};

struct rt_task {
  struct rt_task *parent;        /* its creator's task (NULL for implicit) */
  struct rt_taskgroup *group;    /* innermost taskgroup it counts in */
  struct rt_taskgroup *tg_top;   /* taskgroups this task has open */
  struct rt_team *team;
  struct rt_task *next;          /* queue link */
  int32_t children;              /* incomplete child tasks (team lock) */
  int32_t refs;                  /* 1 until completed + children alive */
  int32_t flags;                 /* kmp_tasking_flags */
  int32_t is_final;
  int32_t is_explicit;
  size_t alloc_size;             /* header + kmp_task_t + shareds (taskloop copies) */
};

/* A taskgroup a task has open; its reduction (task_reduction clause, or a
 * parallel/worksharing reduction with the task modifier) is combined into
 * the original variables when the group ends. */
struct rt_taskred;
struct rt_taskgroup {
  struct rt_taskgroup *outer;
  int64_t count; /* incomplete tasks counted in this group (team lock) */
  struct rt_taskred *reduction; /* NULL when it has none */
};

struct rt_member {
  struct rt_team *team;
  int32_t tid;
  struct rt_task implicit_task;
  struct rt_task *task;          /* task being executed */
  int64_t single_seen;
  int64_t dispatch_seq;
  struct rt_dispatch_private disp;
  int32_t push_num_threads;      /* from __kmpc_push_num_threads, one use */
  int32_t push_num_teams;        /* from __kmpc_push_num_teams, one use */
  int32_t push_thread_limit;
  int32_t nthreads_var;          /* omp_set_num_threads */
  int32_t launch_num_teams;      /* the launch's request (initial thread) */
  int32_t launch_thread_limit;
  int32_t unopened_serialized;   /* serialized regions that failed to open */
  _Atomic int32_t *reduce_held;  /* the reduction lock this thread's open combine holds */
  struct rt_member *prev;        /* rt_cur to restore */
};

/* The calling thread's member (runtime.c); a default initial context is
 * made on first use (rt_current_made) so that device code also runs
 * outside simdev_rt_kernel_begin. Inline: nearly every entry point reads
 * it, a GPU-shaped league's teams a dozen times each, and a function that
 * reads it twice then finds its thread-local address once. */
extern HIDDEN __thread struct rt_member *rt_cur;
HIDDEN struct rt_member *rt_current_made(void);
static inline struct rt_member *rt_current(void)
{
  struct rt_member *m = rt_cur;
  return m ? m : rt_current_made();
}
static inline void rt_set_current(struct rt_member *m) { rt_cur = m; }
/* The calling thread's member as set, NULL when none is (no default made). */
static inline struct rt_member *rt_current_or_null(void) { return rt_cur; }
/* A launch's initial context (kernel.c): the part that does not depend on
 * the launch (`sync_ready`: the team's lock and condition variable exist
 * already), then the launch's own num_teams and thread_limit. */
HIDDEN void rt_launch_context_reset(struct rt_team *t, struct rt_member *m, int sync_ready);
HIDDEN void rt_launch_context_set(struct rt_team *t, struct rt_member *m, int32_t num_teams,
                                  int32_t thread_limit);
HIDDEN int32_t rt_gtid(void);

/* Team life cycle. team_init returns 0 or an errno value. */
HIDDEN int rt_team_init(struct rt_team *t, int32_t nthreads, struct rt_member *forker);
HIDDEN void rt_team_destroy(struct rt_team *t);
HIDDEN void rt_team_reinit_keeping_sync(struct rt_team *t);
HIDDEN void rt_member_init(struct rt_member *m, struct rt_team *t, int32_t tid);
/* Barrier of all team threads; runs queued tasks while waiting and only
 * completes when no task of the team is queued or running. A team of one
 * (every team of a league with default threads, and their one-thread
 * parallel regions) with no task has nothing to wait for: inline, that
 * costs no call (sync.c has the rest; its queue and task count are only
 * touched by its one thread then, so no lock). */
HIDDEN void rt_team_barrier_wait(struct rt_team *t);
static inline void rt_team_barrier(struct rt_team *t)
{
  if (t->nthreads == 1 && !t->queue_head && t->tasks_pending == 0)
    return;
  rt_team_barrier_wait(t);
}

/* Tasks (task.c) */
HIDDEN void rt_task_run_one_locked(struct rt_team *t);  /* lock held on entry and exit */
/* A new task, not yet submitted, that copies the kmp_task_t `pattern`
 * (privates and shareds included, its shareds pointer moved to the copy's
 * own block); NULL with the reason reported. */
HIDDEN void *rt_task_clone(ident_t *loc, void *pattern);
/* Ends a task that was allocated but never submitted: its destructors run
 * (as libomp does for taskloop's pattern task) and its memory is freed. */
HIDDEN void rt_task_discard(void *task);
/* Runs a task allocated by __kmpc_omp_task_alloc at once on the calling
 * thread, as `if(0)` does. */
HIDDEN void rt_task_run_undeferred(ident_t *loc, int32_t gtid, void *task);

/* Tasks (task.c): wait, running queued tasks, until *counter (a 64-bit
 * one with is64; guarded by the team lock) reaches zero, or until the
 * current task's children have completed (a taskgroup's end, taskred.c). */
HIDDEN void rt_task_wait_until_zero(struct rt_team *team, const void *counter, int is64);
HIDDEN void rt_task_wait_children(struct rt_member *m);

/* Thread pool (pool.c). */
struct rt_worker;
/* Reserves up to `want` idle workers (creating them as needed, up to
 * rt_caps()->max_workers in all); returns how many were obtained (0..want)
 * at once, never waiting for a busy one. Failures to create threads are
 * reported once. */
HIDDEN int rt_pool_acquire(int want, struct rt_worker **out);
/* Returns reserved workers to the pool: ones never started, or ones whose
 * jobs have all finished or been revoked. */
HIDDEN void rt_pool_release(struct rt_worker **w, int n);
/* 1 when some idle worker spins now (a job posted to it needs no wake). */
HIDDEN int rt_pool_workers_spinning(void);
/* Starts fn(arg) on a reserved worker; when fn returns the worker calls
 * finish(arg) (which must be its last use of arg) and waits for its next
 * job; the forker returns it to the pool with rt_pool_release after that. */
HIDDEN void rt_pool_start(struct rt_worker *w, void (*fn)(void *), void (*finish)(void *),
                          void *arg);
/* rt_pool_start in two steps: post the job (a spinning worker takes it at
 * once; returns 1 if the worker sleeps and needs rt_pool_wake to see it). */
HIDDEN int rt_pool_post(struct rt_worker *w, void (*fn)(void *), void (*finish)(void *),
                        void *arg);
HIDDEN void rt_pool_wake(struct rt_worker *w);
/* Takes back a posted job the worker has not begun (it sleeps or is not
 * scheduled): 1 if revoked (fn and finish will not run), 0 if the worker
 * already runs it. */
HIDDEN int rt_pool_revoke(struct rt_worker *w);

/* ThreadSanitizer's annotations, when device code built with
 * -fsanitize=thread runs in this process under its runtime (weak: absent
 * otherwise). The runtime's own waits and locks are futexes and atomics of
 * uninstrumented code, which TSan cannot see: each hand-over says so here
 * (fork, join, locks, kernel boundaries in the server), so that only real
 * races of device code are reported. */
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));
static inline void rt_tsan_acquire(const volatile void *a)
{
  if (__tsan_acquire)
    __tsan_acquire((void *)(uintptr_t)a);
}
static inline void rt_tsan_release(const volatile void *a)
{
  if (__tsan_release)
    __tsan_release((void *)(uintptr_t)a);
}

/* "file:line" of a location for messages. */
HIDDEN const char *rt_loc(const ident_t *loc, char *buf, int len);
HIDDEN void rt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#include "kmp_abi.h"

#endif
