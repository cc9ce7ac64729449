/*
 * omp_api.c - the omp_* routines device code may call, answered from the
 * calling thread's context (rt_current()).
 *
 * Locks: none; everything read here is the calling thread's own context,
 * fields of its team that are fixed while the team exists, or the device
 * number (an atomic the server sets before the first kernel).
 */
#include <time.h>

#include "rt_internal.h"

/* nteams-var / teams-thread-limit-var of this device (omp_set_num_teams,
 * omp_set_teams_thread_limit); 0: not set, the caps apply. */
static _Atomic int32_t nteams_var, teams_thread_limit_var;

EXPORT int omp_get_num_teams(void)
{
  const struct rt_league *l = rt_current()->team->league;
  return l ? l->nteams : 1;
}

EXPORT int omp_get_team_num(void) { return rt_current()->team->team_num; }
EXPORT int omp_get_num_threads(void) { return rt_current()->team->nthreads; }
EXPORT int omp_get_thread_num(void) { return rt_current()->tid; }
EXPORT int omp_get_level(void) { return rt_current()->team->level; }
EXPORT int omp_get_active_level(void) { return rt_current()->team->active_level; }
EXPORT int omp_in_parallel(void) { return rt_current()->team->active_level > 0; }

EXPORT int omp_get_thread_limit(void)
{
  const struct rt_team *t = rt_current()->team;
  return t->league ? t->league->thread_limit : t->thread_limit;
}

EXPORT int omp_get_teams_thread_limit(void)
{
  int32_t set = atomic_load(&teams_thread_limit_var);
  return set > 0 && set < omp_get_thread_limit() ? set : omp_get_thread_limit();
}
EXPORT int omp_get_max_teams(void)
{
  int32_t set = atomic_load(&nteams_var);
  return set > 0 && set < rt_caps()->max_teams ? set : rt_caps()->max_teams;
}
EXPORT void omp_set_num_teams(int n)
{
  if (n > 0)
    atomic_store(&nteams_var, n);
}
EXPORT void omp_set_teams_thread_limit(int n)
{
  if (n > 0)
    atomic_store(&teams_thread_limit_var, n);
}

/* The number of threads a parallel region without num_threads would get. */
EXPORT int omp_get_max_threads(void)
{
  const struct rt_member *m = rt_current();
  if (m->team->active_level > 0)
    return 1;
  int32_t n = m->nthreads_var > 0 ? m->nthreads_var : m->team->default_threads;
  return n > m->team->thread_limit ? m->team->thread_limit : n;
}

EXPORT void omp_set_num_threads(int n)
{
  if (n <= 0) {
    rt_error("omp_set_num_threads(%d): the number of threads must be positive; ignored", n);
    return;
  }
  rt_current()->nthreads_var = n;
}

EXPORT int omp_get_num_procs(void) { return rt_caps()->ncpus; }
EXPORT int omp_get_nested(void) { return 0; }
EXPORT void omp_set_nested(UNUSED int on) {}
EXPORT int omp_get_max_active_levels(void) { return 1; }
EXPORT void omp_set_max_active_levels(UNUSED int n) {}
EXPORT int omp_get_cancellation(void) { return 0; }
EXPORT int omp_get_supported_active_levels(void) { return 1; } /* nested regions: one thread */
EXPORT int omp_get_max_task_priority(void) { return 0; }

/* run-sched-var: schedule(runtime) loops here run as static whatever it
 * says (conforming: the choice is the implementation's), but the value set
 * is the value read back, per thread as the ICV is per task. */
static _Thread_local int run_sched_kind = 1 /* omp_sched_static */, run_sched_chunk;
EXPORT void omp_set_schedule(int kind, int chunk)
{
  run_sched_kind = kind;
  run_sched_chunk = chunk;
}
EXPORT void omp_get_schedule(int *kind, int *chunk)
{
  if (kind)
    *kind = run_sched_kind;
  if (chunk)
    *chunk = run_sched_chunk;
}

/* No places: threads are not bound (proc-bind-var false, an empty place
 * partition), as the specification defines for that case. */
EXPORT int omp_get_proc_bind(void) { return 0; /* omp_proc_bind_false */ }
EXPORT int omp_get_num_places(void) { return 0; }
EXPORT int omp_get_place_num_procs(UNUSED int place) { return 0; }
EXPORT void omp_get_place_proc_ids(UNUSED int place, UNUSED int *ids) {}
EXPORT int omp_get_place_num(void) { return -1; }
EXPORT int omp_get_partition_num_places(void) { return 0; }
EXPORT void omp_get_partition_place_nums(UNUSED int *place_nums) {}

/* Resources cannot be released while the device process serves kernels:
 * nonzero means "not paused", which the routines allow. */
EXPORT int omp_pause_resource(UNUSED int kind, UNUSED int device_num) { return -1; }
EXPORT int omp_pause_resource_all(UNUSED int kind) { return -1; }

/* No OMPT tool is ever attached in the device process. */
EXPORT int omp_control_tool(UNUSED int command, UNUSED int modifier, UNUSED void *arg)
{
  return -2; /* omp_control_tool_notool */
}

static const struct rt_team *team_at_level(int level)
{
  const struct rt_team *t = rt_current()->team;
  if (level < 0 || level > t->level)
    return NULL;
  while (t && t->level > level)
    t = t->parent;
  return t;
}

EXPORT int omp_get_team_size(int level)
{
  const struct rt_team *t = team_at_level(level);
  return t ? t->nthreads : -1;
}

EXPORT int omp_get_ancestor_thread_num(int level)
{
  const struct rt_member *m = rt_current();
  if (level == m->team->level)
    return m->tid;
  const struct rt_team *t = team_at_level(level + 1);
  return t ? t->parent_tid : -1;
}

EXPORT double omp_get_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

EXPORT double omp_get_wtick(void)
{
  struct timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Inside the device process: not the host, and no devices of its own. */
EXPORT int omp_is_initial_device(void) { return 0; }
EXPORT int omp_get_num_devices(void) { return 0; }
EXPORT int omp_get_initial_device(void) { return omp_get_num_devices(); }
EXPORT int omp_get_default_device(void) { return 0; }
EXPORT void omp_set_default_device(UNUSED int dev) {}
EXPORT int omp_get_device_num(void) { return rt_device_num(); }
