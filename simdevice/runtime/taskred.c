/*
 * taskred.c - taskgroups (their entry points) and task reductions:
 * `taskgroup task_reduction(...)` with `in_reduction` tasks, `taskloop
 * reduction(...)`, and `parallel` / worksharing reductions with the `task`
 * modifier.
 *
 * A reduction belongs to a taskgroup. Each of the team's threads gets its own
 * private copy of every item (initialised by the compiler's init routine,
 * from the original where it takes one); a task asks for the copy of the
 * thread running it (__kmpc_task_reduction_get_th_data), so no two threads
 * ever update the same copy. When the group ends, after its tasks, the
 * copies are combined into the original with the compiler's combiner and
 * finalised. With the task modifier every thread of the team opens its own
 * group over its own private original, all groups share one set of copies
 * (made by the first thread), and the last thread to end its group combines
 * the copies into its original (the ordinary reduction then combines the
 * threads' originals).
 *
 * Locks: a group's reduction is written by the thread that opened the group
 * and read by its tasks, which start after it is complete; the copies are
 * per thread; the team-shared data is published through atomics in
 * rt_team (task_reduction, task_reduction_done).
 */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"
#include "valgrind_hints.h"

/* kmp_taskred_input_t (clang 9+: __kmpc_taskred_init and the modifier). */
typedef struct {
  void *shar;
  void *orig;
  size_t size;
  void *init; /* void (*)(void *priv, void *orig) */
  void *fini; /* void (*)(void *priv), may be NULL */
  void *comb; /* void (*)(void *shar, void *priv) */
  uint32_t flags; /* bit 0: lazy private copies (allocated eagerly here) */
} kmp_taskred_input_t;

/* kmp_task_red_input_t (older compilers: __kmpc_task_reduction_init). */
typedef struct {
  void *shar;
  size_t size;
  void *init; /* void (*)(void *priv) */
  void *fini;
  void *comb;
  uint32_t flags;
} kmp_task_red_input_t;

struct taskred_item {
  void *shar, *orig;
  size_t size, stride; /* stride: size rounded up to 64 bytes, per thread */
  void *init, *fini, *comb;
  int init_takes_orig;
  char *priv; /* nthreads copies */
};

struct rt_taskred {
  int32_t num, nthreads;
  struct rt_team *team;
  int shared_slot;  /* -1, or the team slot whose copies it uses (modifier) */
  int owns_copies;  /* frees the copies when done */
  struct taskred_item items[];
};

static struct rt_taskred *taskred_new(int32_t num)
{
  if (num < 0 || (size_t)num > (SIZE_MAX - sizeof(struct rt_taskred)) / sizeof(struct taskred_item))
    return NULL;
  return calloc(1, sizeof(struct rt_taskred) + (size_t)num * sizeof(struct taskred_item));
}

static void free_copies(struct rt_taskred *r)
{
  for (int32_t i = 0; i < r->num; i++) {
    struct taskred_item *it = &r->items[i];
    if (it->fini)
      for (int32_t t = 0; t < r->nthreads && it->priv; t++)
        ((void (*)(void *))it->fini)(it->priv + (size_t)t * it->stride);
    free(it->priv);
  }
}

/* Makes every thread's copy of every item; 0, or -1 reported. */
static int make_copies(ident_t *loc, struct rt_taskred *r)
{
  for (int32_t i = 0; i < r->num; i++) {
    struct taskred_item *it = &r->items[i];
    it->stride = (it->size + 63) & ~(size_t)63;
    if (it->stride == 0)
      it->stride = 64;
    it->priv = aligned_alloc(64, it->stride * (size_t)r->nthreads);
    if (!it->priv) {
      char where[256];
      rt_error("task reduction at %s: out of memory for %d copies of %zu bytes",
               rt_loc(loc, where, sizeof(where)), r->nthreads, it->size);
      r->num = i; /* free what was made */
      return -1;
    }
    for (int32_t t = 0; t < r->nthreads; t++) {
      char *copy = it->priv + (size_t)t * it->stride;
      if (!it->init)
        memset(copy, 0, it->size);
      else if (it->init_takes_orig)
        ((void (*)(void *, void *))it->init)(copy, it->orig);
      else
        ((void (*)(void *))it->init)(copy);
    }
  }
  return 0;
}

/* The reduction described by `data` (one of the two input layouts). */
static struct rt_taskred *describe(int32_t num, void *data, int new_layout)
{
  struct rt_taskred *r = taskred_new(num);
  if (!r)
    return NULL;
  struct rt_member *m = rt_current();
  r->num = num;
  r->nthreads = m->team->nthreads;
  r->team = m->team;
  r->shared_slot = -1;
  for (int32_t i = 0; i < num; i++) {
    struct taskred_item *it = &r->items[i];
    if (new_layout) {
      const kmp_taskred_input_t *in = (const kmp_taskred_input_t *)data + i;
      *it = (struct taskred_item){in->shar, in->orig ? in->orig : in->shar, in->size, 0,
                                  in->init, in->fini, in->comb, 1, NULL};
    } else {
      const kmp_task_red_input_t *in = (const kmp_task_red_input_t *)data + i;
      *it = (struct taskred_item){in->shar, in->shar, in->size, 0, in->init, in->fini, in->comb,
                                  0, NULL};
    }
  }
  return r;
}

/* Attaches a reduction to the calling task's innermost taskgroup. */
static void *init_in_group(ident_t *loc, int32_t num, void *data, int new_layout)
{
  struct rt_member *m = rt_current();
  struct rt_taskgroup *g = m->task->tg_top;
  char where[256];
  if (!g) {
    rt_error("task reduction at %s: not inside a taskgroup", rt_loc(loc, where, sizeof(where)));
    return NULL;
  }
  struct rt_taskred *r = describe(num, data, new_layout);
  if (!r) {
    rt_error("task reduction at %s: out of memory for %d items", rt_loc(loc, where, sizeof(where)),
             num);
    return NULL;
  }
  r->owns_copies = 1;
  if (make_copies(loc, r) != 0) {
    free_copies(r);
    free(r);
    return NULL;
  }
  g->reduction = r;
  return g;
}

EXPORT void *__kmpc_taskred_init(int32_t gtid, int32_t num, void *data)
{
  (void)gtid;
  return init_in_group(NULL, num, data, 1);
}

EXPORT void *__kmpc_task_reduction_init(int32_t gtid, int32_t num, void *data)
{
  (void)gtid;
  return init_in_group(NULL, num, data, 0);
}

/* The calling thread's copy of the item whose original is `data` in group
 * `tskgrp` (or the innermost group of the running task having it). */
EXPORT void *__kmpc_task_reduction_get_th_data(int32_t gtid, void *tskgrp, void *data)
{
  (void)gtid;
  struct rt_member *m = rt_current();
  struct rt_taskgroup *g = tskgrp;
  if (!g)
    g = m->task->tg_top ? m->task->tg_top : m->task->group;
  for (; g; g = g->outer) {
    struct rt_taskred *r = g->reduction;
    for (int32_t i = 0; r && i < r->num; i++) {
      struct taskred_item *it = &r->items[i];
      if (data != NULL && data != it->shar && data != it->orig &&
          !((char *)data >= it->priv && (char *)data < it->priv + it->stride * (size_t)r->nthreads))
        continue;
      if (m->team != r->team) {
        rt_error("task reduction of %p: used from another team (a parallel region inside a task "
                 "that takes part in the reduction), which simdevice does not support",
                 data);
        return it->shar;
      }
      return it->priv + (size_t)m->tid * it->stride;
    }
  }
  rt_error("task reduction: %p is not a reduction item of any enclosing taskgroup", data);
  return data;
}

/* The task modifier: every thread opens a group over its own originals;
 * the copies are made once per team and shared. */
static void *modifier_init(ident_t *loc, int32_t gtid, int32_t is_ws, int32_t num, void *data,
                           int new_layout)
{
  struct rt_member *m = rt_current();
  struct rt_team *team = m->team;
  __kmpc_taskgroup(loc, gtid);
  if (team->nthreads == 1)
    return init_in_group(loc, num, data, new_layout);
  struct rt_taskgroup *g = m->task->tg_top;
  struct rt_taskred *mine = describe(num, data, new_layout);
  char where[256];
  if (!g || !mine) {
    rt_error("reduction with the task modifier at %s: out of memory",
             rt_loc(loc, where, sizeof(where)));
    free(mine);
    return g;
  }
  int slot = is_ws ? 1 : 0;
  void *expected = NULL, *const making = (void *)1;
  struct rt_taskred *shared;
  if (atomic_compare_exchange_strong(&team->task_reduction[slot], &expected, making)) {
    shared = describe(num, data, new_layout);
    if (shared && make_copies(loc, shared) != 0) {
      free_copies(shared);
      free(shared);
      shared = NULL;
    }
    if (shared)
      shared->owns_copies = 1;
    /* The copies are published with the pointer (Helgrind, DRD: an edge) */
    VALGRIND_HINT(ANNOTATE_HAPPENS_BEFORE(&team->task_reduction[slot]));
    atomic_store(&team->task_reduction[slot], shared ? (void *)shared : making);
    if (!shared)
      rt_error("reduction with the task modifier at %s: out of memory",
               rt_loc(loc, where, sizeof(where)));
  } else {
    while ((shared = atomic_load(&team->task_reduction[slot])) == making)
      sched_yield();
    VALGRIND_HINT(ANNOTATE_HAPPENS_AFTER(&team->task_reduction[slot]));
  }
  if (shared == NULL || (void *)shared == making) {
    free(mine);
    return g;
  }
  for (int32_t i = 0; i < num; i++) {
    mine->items[i].stride = shared->items[i].stride;
    mine->items[i].priv = shared->items[i].priv;
  }
  mine->shared_slot = slot;
  g->reduction = mine;
  return g;
}

EXPORT void *__kmpc_taskred_modifier_init(ident_t *loc, int32_t gtid, int32_t is_ws, int32_t num,
                                          void *data)
{
  return modifier_init(loc, gtid, is_ws, num, data, 1);
}

EXPORT void *__kmpc_task_reduction_modifier_init(ident_t *loc, int32_t gtid, int32_t is_ws,
                                                 int32_t num, void *data)
{
  return modifier_init(loc, gtid, is_ws, num, data, 0);
}

EXPORT void __kmpc_task_reduction_modifier_fini(ident_t *loc, int32_t gtid, int32_t is_ws)
{
  (void)is_ws;
  __kmpc_end_taskgroup(loc, gtid);
}

static void combine(struct rt_taskred *r)
{
  for (int32_t i = 0; i < r->num; i++) {
    struct taskred_item *it = &r->items[i];
    for (int32_t t = 0; t < r->nthreads; t++)
      ((void (*)(void *, void *))it->comb)(it->shar, it->priv + (size_t)t * it->stride);
  }
}

/* Combines the group's private copies into the original variables and
 * frees them; called by the thread ending the group, after the group's
 * tasks have completed. */
static void taskred_finish(struct rt_taskgroup *g)
{
  struct rt_taskred *r = g->reduction;
  g->reduction = NULL;
  if (r->shared_slot < 0) {
    combine(r);
    free_copies(r);
    free(r);
    return;
  }
  /* Task modifier: the last thread of the team combines every copy into
   * its own original and frees the shared data. */
  struct rt_team *team = r->team;
  int slot = r->shared_slot;
  struct rt_taskred *shared = atomic_load(&team->task_reduction[slot]);
  if (atomic_fetch_add(&team->task_reduction_done[slot], 1) + 1 == team->nthreads) {
    combine(r);
    free_copies(shared);
    free(shared);
    atomic_store(&team->task_reduction_done[slot], 0);
    atomic_store(&team->task_reduction[slot], NULL);
  }
  free(r);
}

/* taskgroup: here, next to the task reductions that belong to a group;
 * the group counts its tasks (task.c). */
EXPORT void __kmpc_taskgroup(ident_t *loc, UNUSED int32_t gtid)
{
  struct rt_member *m = rt_current();
  struct rt_taskgroup *g = calloc(1, sizeof(*g));
  if (!g) {
    char where[256];
    rt_error("taskgroup at %s: out of memory; its end waits for all child tasks instead",
             rt_loc(loc, where, sizeof(where)));
    return;
  }
  g->outer = m->task->tg_top;
  m->task->tg_top = g;
}

EXPORT void __kmpc_end_taskgroup(UNUSED ident_t *loc, UNUSED int32_t gtid)
{
  struct rt_member *m = rt_current();
  struct rt_taskgroup *g = m->task->tg_top;
  if (!g) {
    rt_task_wait_children(m);
    return;
  }
  rt_task_wait_until_zero(m->team, &g->count, 1);
  m->task->tg_top = g->outer;
  if (g->reduction)
    taskred_finish(g);
  free(g);
}
