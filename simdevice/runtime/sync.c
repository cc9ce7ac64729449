/*
 * sync.c - team synchronisation: barrier, single, master/masked,
 * copyprivate, flush, and the cancellation entry points.
 *
 * Locks: the barrier's arrival count and generation are guarded by the
 * team's `lock`; the barrier waits on the team's `cond`, which is also
 * signalled when tasks are queued or complete, because a waiting thread
 * runs the team's queued tasks. `single_count` is atomic. A team of one
 * thread reads its queue and task count without the lock: only that thread
 * touches them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rt_internal.h"

HIDDEN void rt_team_barrier_wait(struct rt_team *t)
{
  /* adaptive_width.c: thread 0's sleeps here are not the region's work
   * (the tasks it runs here are) */
  int measure = t->measure_forker_waits && rt_current()->tid == 0;
  pthread_mutex_lock(&t->lock);
  uint32_t gen = t->bar_gen;
  t->bar_arrived++;
  for (;;) {
    if (t->bar_gen != gen)
      break;
    if (t->queue_head) {
      rt_task_run_one_locked(t);
      continue;
    }
    if (t->bar_arrived == t->nthreads && t->tasks_pending == 0) {
      t->bar_arrived = 0;
      t->bar_gen++;
      pthread_cond_broadcast(&t->cond);
      break;
    }
    int64_t since = measure ? rt_now_ns() : 0;
    pthread_cond_wait(&t->cond, &t->lock);
    if (measure)
      t->forker_wait_ns += rt_now_ns() - since;
  }
  pthread_mutex_unlock(&t->lock);
}

EXPORT void __kmpc_barrier(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  rt_team_barrier(rt_current()->team);
}

/* Cancellation is off (cancel-var false), so these only synchronise. */
EXPORT int32_t __kmpc_cancel_barrier(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  rt_team_barrier(rt_current()->team);
  return 0;
}

EXPORT int32_t __kmpc_cancel(UNUSED ident_t *loc, UNUSED int32_t gtid, UNUSED int32_t kind)
{
  return 0;
}

EXPORT int32_t __kmpc_cancellationpoint(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                        UNUSED int32_t kind)
{
  return 0;
}

EXPORT int32_t __kmpc_single(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  struct rt_member *m = rt_current();
  /* Every thread meets the team's single constructs in the same order; the
   * first to move the team count past this one's number runs it. */
  int64_t mine = m->single_seen++;
  int64_t expected = mine;
  return atomic_compare_exchange_strong(&m->team->single_count, &expected, mine + 1);
}

EXPORT void __kmpc_end_single(UNUSED ident_t *loc, UNUSED int32_t gtid) {}

EXPORT int32_t __kmpc_master(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  return rt_current()->tid == 0;
}

EXPORT void __kmpc_end_master(UNUSED ident_t *loc, UNUSED int32_t gtid) {}

EXPORT int32_t __kmpc_masked(UNUSED ident_t *loc, UNUSED int32_t gtid, int32_t filter)
{
  return rt_current()->tid == filter;
}

EXPORT void __kmpc_end_masked(UNUSED ident_t *loc, UNUSED int32_t gtid) {}

EXPORT void __kmpc_flush(UNUSED ident_t *loc) { atomic_thread_fence(memory_order_seq_cst); }

/* single copyprivate(...): the thread that ran the single (didit) publishes
 * its list; after a barrier every other thread copies from it; a second
 * barrier keeps the source alive until all have copied. */
EXPORT void __kmpc_copyprivate(UNUSED ident_t *loc, UNUSED int32_t gtid, UNUSED size_t cpy_size,
                               void *cpy_data, void (*cpy_func)(void *, void *), int32_t didit)
{
  struct rt_team *t = rt_current()->team;
  if (didit)
    t->copyprivate_data = cpy_data;
  rt_team_barrier(t);
  if (!didit && cpy_func && t->copyprivate_data)
    cpy_func(cpy_data, t->copyprivate_data);
  rt_team_barrier(t);
}

/* scope (5.1): its clauses are compiled inline; the calls mark the region. */
EXPORT void __kmpc_scope(UNUSED ident_t *loc, UNUSED int32_t gtid, UNUSED void *reserved) {}
EXPORT void __kmpc_end_scope(UNUSED ident_t *loc, UNUSED int32_t gtid, UNUSED void *reserved) {}

/* error at(execution) severity(warning|fatal) message(...) (5.1). */
EXPORT void __kmpc_error(ident_t *loc, int severity, const char *message)
{
  char where[256];
  fprintf(stderr, "OMP: %s at %s: %s\n", severity == 2 ? "Error" : "Warning",
          rt_loc(loc, where, sizeof(where)), message ? message : "(no message)");
  if (severity == 2) /* fatal: the device process ends, the host says so */
    abort();
}
