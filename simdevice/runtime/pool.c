/*
 * pool.c - the worker threads that run teams and parallel-region threads.
 *
 * Workers are created on demand, at most rt_caps()->max_workers
 * (max(2 x CPUs, 16) - 1) in all, and never exit until the library is
 * unloaded, so a steady state of launches creates no threads and no launch,
 * however many teams and threads it asks for, makes more threads than that
 * budget. A
 * forker gets the workers that are idle now and never waits for a busy one
 * (a team waiting for a worker another team holds could deadlock). A forking
 * thread first reserves the workers it needs (rt_pool_acquire) so it knows
 * the final team size before any of them starts, then hands each one a job.
 *
 * An idle worker stays hot: it spins for the spin time waiting for its
 * next job, then sleeps on its job word (wait.c), so back-to-back kernels
 * hand jobs to running threads without a system call.
 *
 * Locks: `pool_lock` guards the idle list and the list of all workers. A
 * worker's job slot (fn, finish, arg) has no lock: only the forker that took
 * the worker from the idle list writes it, before bumping `job_seq`
 * (atomic), and the worker reads it after seeing the bump. `sleeping` and
 * `quit` are atomics.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lock_check.h"
#include "rt_internal.h"

struct rt_worker {
  pthread_t thread;
  /* The job: written by the starter before it bumps job_seq, read by the
   * worker after it saw the bump (rt_publish / rt_await_change order them). */
  void (*fn)(void *);
  void (*finish)(void *);
  void *arg;
  _Atomic uint32_t job_seq;  /* +1 per job (and once for quit) */
  _Atomic uint32_t job_state; /* JOB_IDLE / JOB_POSTED / JOB_RUNNING */
  _Atomic uint32_t sleeping; /* the worker sleeps on job_seq (wait.c) */
  _Atomic int quit;
  int joined;
  void *stack_map; /* the worker's stack mapping, guard page included */
  size_t stack_map_bytes;
  struct rt_worker *next_idle;
  struct rt_worker *next_all;
};

/* Adaptive: held for a few instructions, by forkers taking workers and by
 * workers coming back at once, so a short spin beats a futex sleep. */
static pthread_mutex_t pool_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static struct rt_worker *idle_workers;
static struct rt_worker *all_workers;
static int32_t worker_count; /* in all_workers, at most rt_caps()->max_workers */
static int create_failure_reported;
/* Idle workers spinning now (at most max_spinners(), the rest sleep). */
static _Atomic int32_t spinning_workers;

/* CPUs an idle worker may spin on: all but two, one for the host thread
 * that waits for the kernel and one for the server thread that runs it
 * (and team 0). On two CPUs no worker spins: a third spinning thread would
 * take a CPU from the two that carry every launch, and each switch between
 * them costs microseconds (README.md, "Waiting"). */
static int32_t max_spinners(void)
{
  int32_t n = rt_caps()->ncpus - 2;
  return n > 0 ? n : 0;
}

/* A posted job is claimed by the worker (POSTED -> RUNNING) or revoked by
 * its forker (POSTED -> IDLE, rt_pool_revoke), never both. */
enum { JOB_IDLE, JOB_POSTED, JOB_RUNNING };

/* A forker may post a job to a sleeping worker without waking it (a league
 * it expects to finish alone, parallel.c). So that teams which wait for
 * each other still make progress, a sleeping worker looks for such a job
 * every NAP_NS (its job word changed without a wake), for IDLE_NAPS naps
 * after the last job posted to it, then sleeps until woken (an idle device
 * makes no wakeups). */
#define NAP_NS 2000000
#define IDLE_NAPS 250

static void *worker_main(void *p)
{
  struct rt_worker *w = p;
  uint32_t seen = 0;
  int naps = 0;
  for (;;) {
    /* Hot between kernels: spins for the spin time, then sleeps; sleeps at
     * once when enough others spin already. */
    int spin = 0;
    if (!rt_oversubscribed()) {
      spin = atomic_fetch_add(&spinning_workers, 1) < max_spinners();
      if (!spin)
        atomic_fetch_sub(&spinning_workers, 1);
    }
    int changed = rt_await_change(&w->job_seq, seen, &w->sleeping, spin,
                                  naps < IDLE_NAPS ? NAP_NS : 0);
    if (spin)
      atomic_fetch_sub(&spinning_workers, 1);
    if (!changed) {
      naps++; /* nothing was posted */
      continue;
    }
    naps = 0; /* a job came (taken or revoked): the device is in use */
    seen = atomic_load(&w->job_seq);
    if (atomic_load(&w->quit))
      return NULL;
    uint32_t posted = JOB_POSTED;
    if (!atomic_compare_exchange_strong(&w->job_state, &posted, JOB_RUNNING))
      continue; /* revoked: the forker did the work and took us back */
    void (*fn)(void *) = w->fn;
    void (*finish)(void *) = w->finish;
    void *arg = w->arg;

    fn(arg);

    /* The forker puts us back in the idle list once every worker it took
     * has finished (so no other forker can post to us while it may still
     * revoke, and its next region finds us idle). */
    atomic_store(&w->job_state, JOB_IDLE);
    finish(arg);
  }
}

/* Each worker runs on a stack of its own mapping, never on one of glibc's
 * cached stacks. Why: the in-process device (unified_shared_memory, the
 * plugin's usm.c) loads this runtime in a link namespace with its own libc,
 * but ld.so keeps one stack cache for the whole process. A libc that reuses
 * a cached stack first frees the dynamic TLS blocks of the thread that last
 * ran on it with its own free(); those blocks came from ld.so's malloc,
 * which is the program's libc's, so this libc's free() took memory of
 * another heap (Valgrind: "free(): invalid pointer"). A stack given with
 * pthread_attr_setstack never enters the cache nor is taken from it. The
 * size and guard are libc's defaults, as before. Returns 0 or an errno. */
static int worker_stack_attr(struct rt_worker *w, pthread_attr_t *attr)
{
  size_t size = 0, guard = 0;
  int rc = pthread_getattr_default_np(attr);
  if (rc)
    return rc;
  pthread_attr_getstacksize(attr, &size);
  pthread_attr_getguardsize(attr, &guard);
  char *map = mmap(NULL, size + guard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (map == MAP_FAILED)
    rc = errno;
  else if (guard && mprotect(map, guard, PROT_NONE) != 0)
    rc = errno;
  else
    rc = pthread_attr_setstack(attr, map + guard, size);
  if (rc) {
    if (map != MAP_FAILED)
      munmap(map, size + guard);
    pthread_attr_destroy(attr);
    return rc;
  }
  w->stack_map = map;
  w->stack_map_bytes = size + guard;
  return 0;
}

/* A new worker, already linked in all_workers; NULL (and reported once) on
 * failure. Called with pool_lock held. */
static struct rt_worker *worker_create_locked(void)
{
  LOCK_ASSERT_HELD(&pool_lock);
  struct rt_worker *w = calloc(1, sizeof(*w));
  int rc = ENOMEM;
  if (!w)
    goto out_report;
  pthread_attr_t attr;
  rc = worker_stack_attr(w, &attr);
  if (rc)
    goto out_free;
  rc = pthread_create(&w->thread, &attr, worker_main, w);
  pthread_attr_destroy(&attr);
  if (rc) {
    munmap(w->stack_map, w->stack_map_bytes);
    goto out_free;
  }
  w->next_all = all_workers;
  all_workers = w;
  worker_count++;
  return w;

out_free:
  free(w);
out_report:
  if (!create_failure_reported) {
    create_failure_reported = 1;
    rt_error("cannot start a worker thread (%s); teams and parallel regions run with "
             "fewer threads than asked",
             strerror(rc));
  }
  return NULL;
}

HIDDEN int rt_pool_acquire(int want, struct rt_worker **out)
{
  int got = 0;
  pthread_mutex_lock(&pool_lock);
  while (got < want) {
    struct rt_worker *w = idle_workers;
    if (w)
      idle_workers = w->next_idle;
    else if (worker_count >= rt_caps()->max_workers || !(w = worker_create_locked()))
      break; /* every worker is busy: the caller runs with fewer threads */
    w->next_idle = NULL;
    out[got++] = w;
  }
  pthread_mutex_unlock(&pool_lock);
  return got;
}

HIDDEN void rt_pool_release(struct rt_worker **w, int n)
{
  if (n == 0)
    return; /* every parallel region of a one-thread team comes here */
  pthread_mutex_lock(&pool_lock);
  for (int i = 0; i < n; i++) {
    w[i]->next_idle = idle_workers;
    idle_workers = w[i];
  }
  pthread_mutex_unlock(&pool_lock);
}

HIDDEN int rt_pool_post(struct rt_worker *w, void (*fn)(void *), void (*finish)(void *),
                        void *arg)
{
  w->fn = fn;
  w->finish = finish;
  w->arg = arg;
  atomic_store(&w->job_state, JOB_POSTED);
  rt_publish(&w->job_seq);
  return atomic_load(&w->sleeping) != 0;
}

HIDDEN void rt_pool_wake(struct rt_worker *w) { rt_wake_if_sleeping(&w->job_seq, &w->sleeping); }

HIDDEN void rt_pool_start(struct rt_worker *w, void (*fn)(void *), void (*finish)(void *),
                          void *arg)
{
  if (rt_pool_post(w, fn, finish, arg))
    rt_pool_wake(w);
}

HIDDEN int rt_pool_workers_spinning(void)
{
  return atomic_load_explicit(&spinning_workers, memory_order_relaxed) > 0;
}

HIDDEN int rt_pool_revoke(struct rt_worker *w)
{
  uint32_t posted = JOB_POSTED;
  return atomic_compare_exchange_strong(&w->job_state, &posted, JOB_IDLE);
}

/* At unload, stop and join every worker so no thread outlives the code it
 * runs. Workers still busy (a kernel that never returned) are left alone. */
__attribute__((destructor)) static void pool_shutdown(void)
{
  pthread_mutex_lock(&pool_lock);
  struct rt_worker *idle = idle_workers;
  idle_workers = NULL;
  pthread_mutex_unlock(&pool_lock);
  for (struct rt_worker *w = idle; w; w = w->next_idle) {
    atomic_store(&w->quit, 1);
    rt_publish(&w->job_seq);
    rt_wake_if_sleeping(&w->job_seq, &w->sleeping);
  }
  for (struct rt_worker *w = idle; w; w = w->next_idle) {
    pthread_join(w->thread, NULL);
    w->joined = 1;
  }
  /* Free the joined ones; busy ones stay allocated (they may still run). */
  pthread_mutex_lock(&pool_lock);
  struct rt_worker **pp = &all_workers;
  while (*pp) {
    struct rt_worker *w = *pp;
    if (w->joined) {
      *pp = w->next_all;
      worker_count--;
      munmap(w->stack_map, w->stack_map_bytes);
      free(w);
    } else {
      pp = &w->next_all;
    }
  }
  pthread_mutex_unlock(&pool_lock);
}
