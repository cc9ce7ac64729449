/*
 * pool.c - the worker threads that run teams and parallel-region threads.
 *
 * Workers are created on demand and never exit until the library is
 * unloaded, so a steady state of launches creates no threads. A forking
 * thread first reserves the workers it needs (rt_pool_acquire) so it knows
 * the final team size before any of them starts, then hands each one a job.
 *
 * Locks: `pool_lock` guards the idle list, the list of all workers and
 * `shutting_down`; each worker's own `lock` guards its job slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lock_check.h"
#include "rt_internal.h"

struct rt_worker {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  void (*fn)(void *);
  void (*finish)(void *);
  void *arg;
  int has_job;
  int quit;
  int joined;
  struct rt_worker *next_idle;
  struct rt_worker *next_all;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_worker *idle_workers;
static struct rt_worker *all_workers;
static int create_failure_reported;

static void *worker_main(void *p)
{
  struct rt_worker *w = p;
  for (;;) {
    pthread_mutex_lock(&w->lock);
    while (!w->has_job && !w->quit)
      pthread_cond_wait(&w->wake, &w->lock);
    if (w->quit && !w->has_job) {
      pthread_mutex_unlock(&w->lock);
      return NULL;
    }
    void (*fn)(void *) = w->fn;
    void (*finish)(void *) = w->finish;
    void *arg = w->arg;
    w->has_job = 0;
    pthread_mutex_unlock(&w->lock);

    fn(arg);

    /* Back in the idle list before telling the forker we are done, so the
     * forker's next region finds this worker idle instead of creating one. */
    pthread_mutex_lock(&pool_lock);
    w->next_idle = idle_workers;
    idle_workers = w;
    pthread_mutex_unlock(&pool_lock);
    finish(arg);
  }
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
  rc = pthread_mutex_init(&w->lock, NULL);
  if (rc)
    goto out_free;
  rc = pthread_cond_init(&w->wake, NULL);
  if (rc)
    goto out_destroy_lock;
  rc = pthread_create(&w->thread, NULL, worker_main, w);
  if (rc)
    goto out_destroy_cond;
  w->next_all = all_workers;
  all_workers = w;
  return w;

out_destroy_cond:
  pthread_cond_destroy(&w->wake);
out_destroy_lock:
  pthread_mutex_destroy(&w->lock);
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
    else if (!(w = worker_create_locked()))
      break;
    w->next_idle = NULL;
    out[got++] = w;
  }
  pthread_mutex_unlock(&pool_lock);
  return got;
}

HIDDEN void rt_pool_release(struct rt_worker **w, int n)
{
  pthread_mutex_lock(&pool_lock);
  for (int i = 0; i < n; i++) {
    w[i]->next_idle = idle_workers;
    idle_workers = w[i];
  }
  pthread_mutex_unlock(&pool_lock);
}

HIDDEN void rt_pool_start(struct rt_worker *w, void (*fn)(void *), void (*finish)(void *),
                          void *arg)
{
  pthread_mutex_lock(&w->lock);
  w->fn = fn;
  w->finish = finish;
  w->arg = arg;
  w->has_job = 1;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
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
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
  }
  for (struct rt_worker *w = idle; w; w = w->next_idle) {
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    w->joined = 1;
  }
  /* Free the joined ones; busy ones stay allocated (they may still run). */
  pthread_mutex_lock(&pool_lock);
  struct rt_worker **pp = &all_workers;
  while (*pp) {
    struct rt_worker *w = *pp;
    if (w->joined) {
      *pp = w->next_all;
      free(w);
    } else {
      pp = &w->next_all;
    }
  }
  pthread_mutex_unlock(&pool_lock);
}
