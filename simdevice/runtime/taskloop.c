/*
 * taskloop.c - `taskloop` (also `master taskloop`, `masked taskloop`,
 * `parallel master taskloop` and their simd forms): the compiler allocates
 * one pattern task whose private copies of the loop bounds `lb`/`ub` (and
 * its stride) live inside the task; this splits the iteration space into
 * chunks as libomp does (grainsize, num_tasks, their strict modifiers, or
 * about ten tasks per thread), submits one copy of the pattern per chunk
 * with its bounds set, and lets the compiler's task_dup copy firstprivate
 * objects and mark the task that runs the last iteration (lastprivate).
 * Without `nogroup` the tasks form a taskgroup that is waited for.
 *
 * Locks: none of its own; tasks are queued under their team's lock
 * (task.c).
 */
#include <stdint.h>

#include "rt_internal.h"

/* The compiler's task duplication routine: copies what a plain memcpy of
 * the pattern cannot (firstprivate C++ objects) and sets the last-iteration
 * flag of `dst`. */
typedef void (*task_dup_fn)(void *dst, void *src, int32_t lastpriv);

enum { SCHED_DEFAULT = 0, SCHED_GRAINSIZE = 1, SCHED_NUM_TASKS = 2 };

/* Iterations of [lb, ub] (both included) with step st, as libomp counts. */
static uint64_t trip_count(uint64_t lb, uint64_t ub, int64_t st)
{
  if (st > 0)
    return (int64_t)(ub - lb) < 0 ? 0 : (ub - lb) / (uint64_t)st + 1;
  if (st < 0)
    return (int64_t)(lb - ub) < 0 ? 0 : (lb - ub) / (uint64_t)(-st) + 1;
  return 0;
}

static void taskloop(ident_t *loc, int32_t gtid, void *pattern, int32_t if_val, uint64_t *lb,
                     uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched, uint64_t grainsize,
                     int32_t strict, void *task_dup)
{
  if (!pattern) {
    char where[256];
    rt_error("taskloop at %s: no task (its allocation failed); the loop is not run",
             rt_loc(loc, where, sizeof(where)));
    return;
  }
  if (!nogroup)
    __kmpc_taskgroup(loc, gtid);
  const uint64_t lower = *lb, upper = *ub;
  const size_t lb_offset = (size_t)((char *)lb - (char *)pattern);
  const size_t ub_offset = (size_t)((char *)ub - (char *)pattern);
  uint64_t tc = trip_count(lower, upper, st);
  uint64_t num_tasks = 0, chunk = 0, extras = 0;
  if (tc > 0) {
    switch (sched) {
    case SCHED_GRAINSIZE:
      if (grainsize == 0)
        grainsize = 1;
      if (strict) { /* chunks of exactly grainsize, the last one shorter */
        num_tasks = tc / grainsize + (tc % grainsize != 0);
        chunk = grainsize;
      } else if (grainsize > tc) {
        num_tasks = 1;
        chunk = tc;
      } else {
        num_tasks = tc / grainsize;
        chunk = tc / num_tasks;
        extras = tc % num_tasks;
      }
      break;
    case SCHED_NUM_TASKS:
      num_tasks = grainsize == 0 ? 1 : grainsize > tc ? tc : grainsize;
      chunk = tc / num_tasks;
      extras = tc % num_tasks;
      break;
    default: { /* libomp: ten tasks per thread of the team */
      uint64_t want = (uint64_t)rt_current()->team->nthreads * 10;
      num_tasks = want > tc ? tc : want;
      chunk = tc / num_tasks;
      extras = tc % num_tasks;
    }
    }
  }
  uint64_t first = lower;
  for (uint64_t i = 0; i < num_tasks; i++) {
    uint64_t iters = chunk + (i < extras);
    if (strict && sched == SCHED_GRAINSIZE && i == num_tasks - 1)
      iters = tc - chunk * (num_tasks - 1);
    uint64_t last = first + (iters - 1) * (uint64_t)st;
    void *task = rt_task_clone(loc, pattern);
    if (!task)
      break; /* reported; the iterations of the tasks made so far still run */
    *(uint64_t *)((char *)task + lb_offset) = first;
    *(uint64_t *)((char *)task + ub_offset) = last;
    if (task_dup)
      ((task_dup_fn)task_dup)(task, pattern, i == num_tasks - 1);
    if (if_val)
      __kmpc_omp_task(loc, gtid, task);
    else /* if(false): each chunk runs at once, undeferred */
      rt_task_run_undeferred(loc, gtid, task);
    first = last + (uint64_t)st;
  }
  rt_task_discard(pattern);
  if (!nogroup)
    __kmpc_end_taskgroup(loc, gtid);
}

EXPORT void __kmpc_taskloop(ident_t *loc, int32_t gtid, void *task, int32_t if_val, uint64_t *lb,
                            uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched,
                            uint64_t grainsize, void *task_dup)
{
  taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, 0, task_dup);
}

/* OpenMP 5.1: grainsize(strict: g) / num_tasks(strict: n) (modifier 1). */
EXPORT void __kmpc_taskloop_5(ident_t *loc, int32_t gtid, void *task, int32_t if_val,
                              uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup,
                              int32_t sched, uint64_t grainsize, int32_t modifier,
                              void *task_dup)
{
  taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier != 0,
           task_dup);
}
