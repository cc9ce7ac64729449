/*
 * task.c - explicit tasks: allocation, deferred execution by the team's
 * threads, taskwait, taskyield, if(0) tasks and dependences (the taskgroup
 * entry points are taskred.c's, with the reductions a group's end finishes).
 *
 * A deferred task goes on its team's FIFO queue; team threads run queued
 * tasks while they wait in a barrier, a taskwait or a taskgroup end, and
 * at the end of the region, so every task completes before its region ends.
 * Dependences are honoured conservatively: a task with `depend` clauses
 * starts only after every earlier sibling has completed (which satisfies
 * any in/out/inout/mutexinoutset order), then is deferred like any task.
 *
 * Locks: the team's `lock` guards its queue, `tasks_pending`, and every
 * task's `children` and `refs` and every taskgroup's `count` (a task and its
 * children and groups all belong to one team). Tasks run with no lock held.
 */
#include <stdlib.h>
#include <string.h>

#include "lock_check.h"
#include "rt_internal.h"

/* kmp_task_t: what the compiler sees of a task. */
typedef struct {
  void *shareds;
  kmp_routine_entry_t routine;
  int32_t part_id;
  kmp_routine_entry_t destructors; /* data1, when the destructors flag is set */
  void *data2;
} kmp_task_t;

/* kmp_tasking_flags_t bits. */
enum { TASK_TIED = 1 << 0, TASK_FINAL = 1 << 1, TASK_MERGED_IF0 = 1 << 2, TASK_DESTRUCTORS = 1 << 3 };

/* rt_task header, then kmp_task_t (sizeof_kmp_task_t bytes, privates
 * included), then the shareds block. */
#define HDR_SIZE ((sizeof(struct rt_task) + 15) & ~(size_t)15)

static kmp_task_t *task_payload(struct rt_task *t) { return (kmp_task_t *)((char *)t + HDR_SIZE); }
static struct rt_task *task_header(void *kt) { return (struct rt_task *)((char *)kt - HDR_SIZE); }

EXPORT void *__kmpc_omp_task_alloc(ident_t *loc, UNUSED int32_t gtid, int32_t flags,
                                   size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                   kmp_routine_entry_t task_entry)
{
  struct rt_member *m = rt_current();
  if (sizeof_kmp_task_t < sizeof(kmp_task_t))
    sizeof_kmp_task_t = sizeof(kmp_task_t);
  size_t task_size = (sizeof_kmp_task_t + 15) & ~(size_t)15;
  if (sizeof_kmp_task_t > SIZE_MAX / 2 || sizeof_shareds > SIZE_MAX / 2) {
    char where[256];
    rt_error("task at %s: task size %zu + shareds %zu is too large", rt_loc(loc, where, sizeof(where)),
             sizeof_kmp_task_t, sizeof_shareds);
    return NULL;
  }
  struct rt_task *t = calloc(1, HDR_SIZE + task_size + sizeof_shareds);
  if (!t) {
    char where[256];
    rt_error("task at %s: out of memory for a task of %zu bytes", rt_loc(loc, where, sizeof(where)),
             HDR_SIZE + task_size + sizeof_shareds);
    return NULL;
  }
  struct rt_task *creator = m->task;
  t->team = m->team;
  t->flags = flags;
  t->is_explicit = 1;
  t->is_final = (flags & TASK_FINAL) || creator->is_final;
  t->refs = 1;
  t->alloc_size = HDR_SIZE + task_size + sizeof_shareds;
  kmp_task_t *kt = task_payload(t);
  kt->shareds = sizeof_shareds ? (char *)kt + task_size : NULL;
  kt->routine = task_entry;
  return kt;
}

HIDDEN void *rt_task_clone(ident_t *loc, void *pattern)
{
  struct rt_task *from = task_header(pattern);
  struct rt_task *t = malloc(from->alloc_size);
  if (!t) {
    char where[256];
    rt_error("taskloop at %s: out of memory for a task of %zu bytes", rt_loc(loc, where, sizeof(where)),
             from->alloc_size);
    return NULL;
  }
  memcpy(t, from, from->alloc_size);
  t->parent = NULL;
  t->group = NULL;
  t->tg_top = NULL;
  t->next = NULL;
  t->children = 0;
  t->refs = 1;
  kmp_task_t *kt = task_payload(t), *from_kt = task_payload(from);
  if (from_kt->shareds)
    kt->shareds = (char *)t + ((char *)from_kt->shareds - (char *)from);
  return kt;
}

HIDDEN void rt_task_discard(void *task)
{
  struct rt_task *t = task_header(task);
  kmp_task_t *kt = task;
  if ((t->flags & TASK_DESTRUCTORS) && kt->destructors)
    kt->destructors(rt_gtid(), kt);
  free(t);
}

HIDDEN void rt_task_run_undeferred(ident_t *loc, int32_t gtid, void *task)
{
  __kmpc_omp_task_begin_if0(loc, gtid, task);
  kmp_task_t *kt = task;
  kt->routine(gtid, kt);
  __kmpc_omp_task_complete_if0(loc, gtid, task);
}

/* Links a new task to its creator and taskgroup; team lock held. */
static void task_attach_locked(struct rt_task *t, struct rt_task *creator)
{
  LOCK_ASSERT_HELD(&t->team->lock);
  t->parent = creator;
  creator->children++;
  creator->refs++;
  t->group = creator->tg_top ? creator->tg_top : creator->group;
  if (t->group)
    t->group->count++;
}

/* Drops one reference; team lock held. */
static void task_free_if_unreferenced_locked(struct rt_task *t)
{
  LOCK_ASSERT_HELD(&t->team->lock);
  if (t->is_explicit && --t->refs == 0)
    free(t);
}

/* Completion bookkeeping after the task body ran; team lock held. */
static void task_complete_locked(struct rt_task *t)
{
  LOCK_ASSERT_HELD(&t->team->lock);
  struct rt_task *parent = t->parent;
  if (t->group)
    t->group->count--;
  if (parent) {
    parent->children--;
    task_free_if_unreferenced_locked(parent);
  }
  pthread_cond_broadcast(&t->team->cond);
  task_free_if_unreferenced_locked(t);
}

/* Runs t's body on the calling thread as its current task. */
static void task_execute(struct rt_task *t)
{
  struct rt_member *m = rt_current();
  struct rt_task *saved = m->task;
  kmp_task_t *kt = task_payload(t);
  int32_t gtid = rt_gtid();
  m->task = t;
  kt->routine(gtid, kt);
  if ((t->flags & TASK_DESTRUCTORS) && kt->destructors)
    kt->destructors(gtid, kt);
  m->task = saved;
}

HIDDEN void rt_task_run_one_locked(struct rt_team *team)
{
  LOCK_ASSERT_HELD(&team->lock);
  struct rt_task *t = team->queue_head;
  team->queue_head = t->next;
  if (!team->queue_head)
    team->queue_tail = NULL;
  pthread_mutex_unlock(&team->lock);
  task_execute(t);
  pthread_mutex_lock(&team->lock);
  team->tasks_pending--;
  task_complete_locked(t);
}

/* Waits, running queued tasks, until *counter (guarded by the team lock)
 * reaches zero. */
HIDDEN void rt_task_wait_until_zero(struct rt_team *team, const void *counter, int is64)
{
  pthread_mutex_lock(&team->lock);
  for (;;) {
    int64_t v = is64 ? *(const int64_t *)counter : *(const int32_t *)counter;
    if (v == 0)
      break;
    if (team->queue_head)
      rt_task_run_one_locked(team);
    else
      pthread_cond_wait(&team->cond, &team->lock);
  }
  pthread_mutex_unlock(&team->lock);
}

HIDDEN void rt_task_wait_children(struct rt_member *m)
{
  rt_task_wait_until_zero(m->team, &m->task->children, 0);
}

static int32_t task_submit(ident_t *loc, void *new_task)
{
  if (!new_task) {
    char where[256];
    rt_error("task at %s: no task (its allocation failed); the task body is not run",
             rt_loc(loc, where, sizeof(where)));
    return 0;
  }
  struct rt_member *m = rt_current();
  struct rt_task *t = task_header(new_task);
  struct rt_team *team = m->team;
  if (t->team != team) {
    char where[256];
    rt_error("task at %s: task %p was allocated in another team", rt_loc(loc, where, sizeof(where)),
             new_task);
    return 0;
  }
  pthread_mutex_lock(&team->lock);
  task_attach_locked(t, m->task);
  if (t->is_final) {
    /* final: included, run now by the encountering thread */
    pthread_mutex_unlock(&team->lock);
    task_execute(t);
    pthread_mutex_lock(&team->lock);
    task_complete_locked(t);
  } else {
    t->next = NULL;
    if (team->queue_tail)
      team->queue_tail->next = t;
    else
      team->queue_head = t;
    team->queue_tail = t;
    team->tasks_pending++;
    pthread_cond_broadcast(&team->cond);
  }
  pthread_mutex_unlock(&team->lock);
  return 0;
}

EXPORT int32_t __kmpc_omp_task(ident_t *loc, UNUSED int32_t gtid, void *new_task)
{
  return task_submit(loc, new_task);
}

EXPORT int32_t __kmpc_omp_task_with_deps(ident_t *loc, UNUSED int32_t gtid, void *new_task,
                                         UNUSED int32_t ndeps, UNUSED void *dep_list,
                                         UNUSED int32_t ndeps_noalias,
                                         UNUSED void *noalias_dep_list)
{
  rt_task_wait_children(rt_current());
  return task_submit(loc, new_task);
}

/* task if(0) depend(...): wait for the dependences before the inline body. */
EXPORT void __kmpc_omp_wait_deps(UNUSED ident_t *loc, UNUSED int32_t gtid, UNUSED int32_t ndeps,
                                 UNUSED void *dep_list, UNUSED int32_t ndeps_noalias,
                                 UNUSED void *noalias_dep_list)
{
  rt_task_wait_children(rt_current());
}

/* task if(0): the compiler runs the body inline between these two. */
EXPORT void __kmpc_omp_task_begin_if0(ident_t *loc, UNUSED int32_t gtid, void *task)
{
  if (!task) {
    char where[256];
    rt_error("task if(0) at %s: no task (its allocation failed)", rt_loc(loc, where, sizeof(where)));
    return;
  }
  struct rt_member *m = rt_current();
  struct rt_task *t = task_header(task);
  pthread_mutex_lock(&m->team->lock);
  task_attach_locked(t, m->task);
  pthread_mutex_unlock(&m->team->lock);
  /* Its creator is restored from t->parent at completion. */
  m->task = t;
}

EXPORT void __kmpc_omp_task_complete_if0(ident_t *loc, UNUSED int32_t gtid, void *task)
{
  if (!task)
    return;
  struct rt_member *m = rt_current();
  struct rt_task *t = task_header(task);
  if (m->task != t) {
    char where[256];
    rt_error("task if(0) at %s: completing task %p which is not the current task",
             rt_loc(loc, where, sizeof(where)), task);
    return;
  }
  kmp_task_t *kt = task_payload(t);
  if ((t->flags & TASK_DESTRUCTORS) && kt->destructors)
    kt->destructors(rt_gtid(), kt);
  m->task = t->parent;
  pthread_mutex_lock(&m->team->lock);
  task_complete_locked(t);
  pthread_mutex_unlock(&m->team->lock);
}

EXPORT int32_t __kmpc_omp_taskwait(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  rt_task_wait_children(rt_current());
  return 0;
}

EXPORT int32_t __kmpc_omp_taskyield(UNUSED ident_t *loc, UNUSED int32_t gtid, UNUSED int end_part)
{
  struct rt_team *team = rt_current()->team;
  pthread_mutex_lock(&team->lock);
  if (team->queue_head)
    rt_task_run_one_locked(team);
  pthread_mutex_unlock(&team->lock);
  return 0;
}

EXPORT int omp_in_final(void) { return rt_current()->task->is_final; }

/* task affinity(...): a placement hint; one heap, no places: nothing to do. */
EXPORT int32_t __kmpc_omp_reg_task_with_affinity(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                                 UNUSED void *new_task, UNUSED int32_t naffins,
                                                 UNUSED void *affin_list)
{
  return 0;
}

/* taskwait depend(...) (5.1): dependences are honoured conservatively, by
 * waiting for every child, with or without nowait. */
EXPORT void __kmpc_omp_taskwait_deps_51(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                        UNUSED int32_t ndeps, UNUSED void *dep_list,
                                        UNUSED int32_t ndeps_noalias,
                                        UNUSED void *noalias_dep_list,
                                        UNUSED int32_t has_no_wait)
{
  rt_task_wait_children(rt_current());
}

EXPORT int omp_in_explicit_task(void) { return rt_current()->task->is_explicit; }
