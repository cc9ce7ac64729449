/*
 * async.c - asynchronous constructs: the plugin queue of one construct, its
 * deferred end-of-construct work, and the synchronise stage (async.h).
 *
 * Locking: record->lock (R below) guards the record's queue, state, error
 * and deferred lists (taken by whoever drives the record; the non-blocking
 * poll only try-locks it, so a task never waits behind another thread's
 * wait). tracked_lock guards the list of the seed interface's records and is
 * never held together with another lock. live_lock guards the list of every
 * live record (live, live_prev/live_next); under it the exit report only
 * try-locks an R, and async_record_put takes it with no R held, so it
 * orders before R and never waits for one.
 *
 * R and the table lock dev->map.lock (T) nest in both orders, each in one
 * stage of a record's life:
 *   dispatch:    maps.c holds T while it queues the record's copies and
 *                records its deferred work (async_submit, async_retrieve,
 *                async_pin_entry, async_defer_*), which take R: T -> R.
 *   synchronise: async_record_poll/wait hold R and run_deferred takes T to
 *                update the table: R -> T.
 * This cannot deadlock, because while a record is being dispatched no
 * thread but the dispatching one takes its R: others reach a record only
 * through what the dispatch hands out when it has returned (libomp's task
 * handle, a seed completion event, the tracked list) or through an entry's
 * `busy` marker, which is set only by the last table work of a dispatch
 * (maps.c: the copies back and removals of a data end or update) and read
 * only under T, so after that work has released T. A thread that holds T
 * and waits for an R therefore waits for a lock nobody holds; and no thread
 * waits for any R while it holds T otherwise (maps.c drops T before it
 * waits for another construct's record).
 */
#include "async.h"
#include "ompt.h"
#include "array.h"
#include "faults.h"
#include "lock_check.h"
#include "mapping_memory.h"
#include "profile.h"
#include "trace.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct restore {
  uintptr_t addr, value;
};

/* An entry the record pins (one pin per listing). */
struct pinned {
  struct mapping_entry *entry;
  bool remove; /* remove it at completion if its counts are still zero */
};

struct pointer_list {
  void **ptrs;
  size_t num, cap;
};

/* A queued kernel or copy whose OMPT trace record waits for the queue: the
 * plugin stores where its work ran in k.times or op.times (time_next_op). */
struct traced_work {
  bool is_kernel;
  struct ompt_kernel k;
  struct ompt_op op;
  struct traced_work *next;
};

struct async_record {
  struct device *dev;
  const char *what;
  const ident_t *loc; /* the compiler's, static: valid as long as we are */
  pthread_mutex_t lock;
  _Atomic int refs;
  __tgt_async_info info;
  enum async_status status;
  char error[1024];
  /* deferred work */
  struct restore *restores;
  size_t num_restores, cap_restores;
  struct pinned *pinned;
  size_t num_pinned, cap_pinned;
  struct pointer_list device_frees; /* private device copies */
  struct pointer_list host_frees;
  void (*callback)(void *);
  void *callback_param;
  struct traced_work *traced; /* newest first */
  struct async_record *next_tracked;
  int profile_lane;   /* LIBOMPTARGET_PROFILE's nowait lane; -1: none */
  uint64_t profile_t0;
  struct async_record *live_prev, *live_next; /* every record: live_lock */
  _Atomic bool abandoned; /* still running when the program exited */
  _Atomic bool in_task;   /* in a libomp task's handle (async_record_set_in_task) */
};

/* Every record alive, for the report of the regions still running at exit
 * (async_report_running_at_exit). */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct async_record *live;
static _Atomic bool exit_started; /* async_report_running_at_exit ran */
static pthread_t exit_thread;      /* its first caller: set before the flag */
static atomic_flag exit_thread_set = ATOMIC_FLAG_INIT;

static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;
static struct async_record *tracked;

struct async_record *async_record_new(struct device *dev, const char *what,
                                      const ident_t *loc) {
  struct async_record *r = calloc(1, sizeof *r);
  if (!r) {
    report_error_set("%s: out of host memory for an asynchronous construct",
                     what);
    return NULL;
  }
  r->dev = dev;
  r->what = what;
  r->loc = loc;
  r->refs = 1;
  r->status = ASYNC_PENDING;
  r->profile_lane = -1;
  pthread_mutex_lock(&live_lock);
  /* Checked under live_lock, which the exit's look at the running records
   * takes after it sets exit_started: a record is either seen by that look
   * (and waited for) or refused here. One that neither did would have its
   * kernel run while the exit unloads the code, and libomp's shutdown wait
   * for a task that no thread polls any more. */
  if (atomic_load(&exit_started)) {
    pthread_mutex_unlock(&live_lock);
    free(r);
    report_error_set("%s: the program began to exit", what);
    return NULL;
  }
  pthread_mutex_init(&r->lock, NULL);
  r->live_next = live;
  if (live)
    live->live_prev = r;
  live = r;
  pthread_mutex_unlock(&live_lock);
  if (PROFILE_ON()) {
    r->profile_t0 = profile_now();
    r->profile_lane = profile_lane_take(dev->id);
  }
  return r;
}

void async_record_get(struct async_record *r) {
  atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

void async_record_put(struct async_record *r) {
  if (!r || atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1)
    return;
  async_record_wait(r);
  pthread_mutex_lock(&live_lock);
  if (r->live_prev)
    r->live_prev->live_next = r->live_next;
  else
    live = r->live_next;
  if (r->live_next)
    r->live_next->live_prev = r->live_prev;
  pthread_mutex_unlock(&live_lock);
  while (r->traced) {
    struct traced_work *w = r->traced;
    r->traced = w->next;
    free(w);
  }
  free(r->restores);
  free(r->pinned);
  free(r->device_frees.ptrs);
  free(r->host_frees.ptrs);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

struct device *async_record_device(struct async_record *r) { return r->dev; }

const char *async_record_error(struct async_record *r) { return r->error; }

/* ---- queueing -------------------------------------------------------- */

static const struct plugin_ops *ops_of(struct async_record *r) {
  return &r->dev->plugin->ops;
}

/* The result of queueing a copy: 0, or -1 with its cause. */
static int copy_queued(struct async_record *r, int rc, enum device_copy kind,
                       void *hst, void *tgt, int64_t size) {
  if (rc == OFFLOAD_SUCCESS)
    return 0;
  device_copy_failed(r->dev, kind, hst, tgt, size);
  return -1;
}

/* Traced work about to be queued: a record that waits for the queue, with
 * the plugin armed to time the work in `times` (a field of the record).
 * NULL (the host's times, as without the entry point) when the plugin does
 * not time work or no memory is left. */
static struct traced_work *traced_work_new(struct async_record *r,
                                           const struct ompt_kernel *k,
                                           const struct ompt_op *op) {
  if (!ops_of(r)->time_next_op)
    return NULL;
  struct traced_work *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->is_kernel = k != NULL;
  if (k)
    w->k = *k;
  else
    w->op = *op;
  device_time_next_op(r->dev, k ? w->k.times : w->op.times);
  return w;
}

/* After the plugin call that queued w's work, under r->lock: w waits for
 * the queue (true: the caller's record is deferred), or, where the call
 * failed, is dropped with the plugin disarmed (it may not have reached
 * the plugin). */
static bool traced_work_queued(struct async_record *r, struct traced_work *w,
                               int rc) {
  LOCK_ASSERT_HELD(&r->lock);
  if (!w)
    return false;
  if (rc == OFFLOAD_SUCCESS) {
    w->next = r->traced;
    r->traced = w;
    return true;
  }
  device_time_next_op(r->dev, NULL);
  free(w);
  return false;
}

/* A queued copy to the device, traced with `shown` as its host address. */
static int submit_shown(struct async_record *r, void *tgt, void *hst,
                        int64_t size, const char *name, const void *shown) {
  device_trace_copy(QUEUE_TO_DEVICE, (void *)shown, tgt, size, name);
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_op op = ompt_op_make(OMPT_OP_TO_DEVICE, hst, OMPT_HOST, tgt,
                                   r->dev->id, (size_t)size);
  ompt_op_begin(&op);
  struct traced_work *w = op.t0 ? traced_work_new(r, NULL, &op) : NULL;
  pthread_mutex_lock(&r->lock);
  int rc = RTL_CALL(ASYNC_SUBMIT, ops_of(r), data_submit_async)(
      r->dev->rtl_id, tgt, hst, size, &r->info);
  op.deferred = traced_work_queued(r, w, rc);
  pthread_mutex_unlock(&r->lock);
  ompt_op_end(&op);
  if (PROFILE_ON())
    profile_copy(r->dev->id, r->profile_lane, true, size, name, t0);
  return copy_queued(r, rc, QUEUE_TO_DEVICE, hst, tgt, size);
}

int async_submit(struct async_record *r, void *tgt, void *hst, int64_t size,
                 const char *name) {
  if (!ops_of(r)->data_submit_async)
    return device_submit_named(r->dev, tgt, hst, size, name);
  return submit_shown(r, tgt, hst, size, name, hst);
}

int async_submit_pointer(struct async_record *r, void *tgt, void *value,
                         const void *hst_ptr_addr, const char *name) {
  if (!ops_of(r)->data_submit_async)
    return device_submit_pointer(r->dev, tgt, value, hst_ptr_addr, name);
  return submit_shown(r, tgt, value, (int64_t)sizeof(void *), name,
                      hst_ptr_addr);
}

int async_retrieve(struct async_record *r, void *hst, void *tgt, int64_t size,
                   const char *name) {
  if (!ops_of(r)->data_retrieve_async)
    return device_retrieve_named(r->dev, hst, tgt, size, name);
  device_trace_copy(QUEUE_FROM_DEVICE, hst, tgt, size, name);
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_op op = ompt_op_make(OMPT_OP_FROM_DEVICE, tgt, r->dev->id, hst,
                                   OMPT_HOST, (size_t)size);
  ompt_op_begin(&op);
  struct traced_work *w = op.t0 ? traced_work_new(r, NULL, &op) : NULL;
  pthread_mutex_lock(&r->lock);
  int rc = RTL_CALL(ASYNC_RETRIEVE, ops_of(r), data_retrieve_async)(
      r->dev->rtl_id, hst, tgt, size, &r->info);
  op.deferred = traced_work_queued(r, w, rc);
  pthread_mutex_unlock(&r->lock);
  ompt_op_end(&op);
  if (PROFILE_ON())
    profile_copy(r->dev->id, r->profile_lane, false, size, name, t0);
  return copy_queued(r, rc, QUEUE_FROM_DEVICE, hst, tgt, size);
}

/* The trace records of r's queued kernels and copies in queue order, once
 * its queue completed (or failed: work that never ran has no device times,
 * and its record the host's). Under r->lock; the tool's buffer callbacks
 * run under it. */
static void traced_work_record(struct async_record *r) {
  LOCK_ASSERT_HELD(&r->lock);
  struct traced_work *w = r->traced, *prev = NULL;
  r->traced = NULL;
  while (w) { /* newest first: reverse to queue order */
    struct traced_work *next = w->next;
    w->next = prev;
    prev = w;
    w = next;
  }
  for (w = prev; w; w = prev) {
    if (w->is_kernel)
      ompt_kernel_record(&w->k);
    else
      ompt_op_record(&w->op);
    prev = w->next;
    free(w);
  }
}

int async_launch(struct async_record *r, const struct device_entry *kernel,
                 void **args, ptrdiff_t *offsets, int32_t num_args,
                 int32_t num_teams, int32_t thread_limit, uint64_t tripcount,
                 uint32_t kargs_version) {
  /* a KernelArgs version 4+ launch through run_target_kernel when the
   * plugin has it (device_run_kernel says why) */
  bool by_kernel = kargs_version >= TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST &&
                   ops_of(r)->run_target_kernel;
  if (!by_kernel && !ops_of(r)->run_target_team_region_async)
    return device_run_kernel(r->dev, kernel, args, offsets, num_args,
                             num_teams, thread_limit, tripcount,
                             kargs_version);
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_kernel ok = {.teams = ompt_requested_teams(num_teams)};
  ompt_submit_begin(&ok);
  struct traced_work *w = ok.traced ? traced_work_new(r, &ok, NULL) : NULL;
  pthread_mutex_lock(&r->lock);
  int rc = by_kernel
               ? RTL_CALL(ASYNC_LAUNCH_KERNEL, ops_of(r), run_target_kernel)(
                     r->dev->rtl_id, kernel->tgt_addr, args, offsets,
                     num_args, num_teams, thread_limit, tripcount,
                     kargs_version, &r->info)
               : RTL_CALL(ASYNC_LAUNCH, ops_of(r),
                          run_target_team_region_async)(
                     r->dev->rtl_id, kernel->tgt_addr, args, offsets,
                     num_args, num_teams, thread_limit, tripcount, &r->info);
  ok.deferred = traced_work_queued(r, w, rc); /* recorded at completion */
  pthread_mutex_unlock(&r->lock);
  ompt_submit_end(&ok);
  if (PROFILE_ON())
    profile_kernel(r->dev->id, r->profile_lane, kernel->name, num_teams,
                   thread_limit, t0);
  if (rc != OFFLOAD_SUCCESS) {
    report_error_set("device %d: queueing kernel %s (device %p) with %d "
                     "argument%s failed",
                     r->dev->id, kernel->name ? kernel->name : "?",
                     kernel->tgt_addr, num_args, num_args == 1 ? "" : "s");
    device_add_plugin_cause(r->dev);
    return -1;
  }
  return 0;
}

/* ---- deferred work --------------------------------------------------- */

static int out_of_memory(struct async_record *r) {
  report_error_set("%s: out of host memory recording the construct's "
                   "deferred work",
                   r->what);
  return -1;
}

int async_defer_restore(struct async_record *r, uintptr_t addr,
                        uintptr_t value) {
  pthread_mutex_lock(&r->lock);
  int rc = ARRAY_RESERVE(r->restores, r->cap_restores, r->num_restores + 1);
  if (rc == 0)
    r->restores[r->num_restores++] = (struct restore){addr, value};
  pthread_mutex_unlock(&r->lock);
  return rc == 0 ? 0 : out_of_memory(r);
}

/* Lists and pins `e` until the record completes. Caller holds the table
 * lock (the pin count is the table's). */
static int pin_entry(struct async_record *r, struct mapping_entry *e,
                     bool remove) {
  LOCK_ASSERT_HELD(&r->dev->map.lock);
  pthread_mutex_lock(&r->lock);
  int rc = ARRAY_RESERVE(r->pinned, r->cap_pinned, r->num_pinned + 1);
  if (rc == 0) {
    r->pinned[r->num_pinned++] = (struct pinned){e, remove};
    mapping_pin(&r->dev->map, e);
  }
  pthread_mutex_unlock(&r->lock);
  return rc == 0 ? 0 : out_of_memory(r);
}

int async_pin_entry(struct async_record *r, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&r->dev->map.lock);
  return pin_entry(r, e, false);
}

int async_defer_entry(struct async_record *r, struct mapping_entry *e,
                      bool remove) {
  LOCK_ASSERT_HELD(&r->dev->map.lock);
  if (pin_entry(r, e, remove) != 0)
    return -1;
  e->busy = r;
  return 0;
}

static int defer_pointer(struct async_record *r, struct pointer_list *l,
                         void *p) {
  pthread_mutex_lock(&r->lock);
  int rc = ARRAY_RESERVE(l->ptrs, l->cap, l->num + 1);
  if (rc == 0)
    l->ptrs[l->num++] = p;
  pthread_mutex_unlock(&r->lock);
  return rc == 0 ? 0 : out_of_memory(r);
}

int async_defer_device_free(struct async_record *r, void *tgt) {
  return defer_pointer(r, &r->device_frees, tgt);
}

int async_defer_host_free(struct async_record *r, void *ptr) {
  return defer_pointer(r, &r->host_frees, ptr);
}

void async_set_callback(struct async_record *r, void (*fn)(void *),
                        void *param) {
  pthread_mutex_lock(&r->lock);
  r->callback = fn;
  r->callback_param = param;
  pthread_mutex_unlock(&r->lock);
}

/* ---- the synchronise stage ------------------------------------------- */

/* Runs the deferred work after the queue completed (or failed: the table
 * must not keep zero-count entries or busy markers either way). Under
 * r->lock; takes the table lock (R -> T, see the top of this file). A
 * failure here (freeing device memory) fails the record. */
static void run_deferred(struct async_record *r) {
  LOCK_ASSERT_HELD(&r->lock);
  struct device *dev = r->dev;
  bool ok = r->status != ASYNC_FAILED;
  pthread_mutex_lock(&dev->map.lock);
  /* A failed queue may not have copied back: then host pointers keep their
   * host values anyway, and restoring them is still right. A record left
   * running at exit writes nothing into host memory (the object may have
   * been main's ended stack frame). */
  size_t restores = atomic_load(&r->abandoned) ? 0 : r->num_restores;
  for (size_t i = 0; i < restores; i++)
    memcpy((void *)r->restores[i].addr, &r->restores[i].value,
           sizeof(void *));
  for (size_t i = 0; i < r->num_pinned; i++) {
    struct mapping_entry *e = r->pinned[i].entry;
    if (e->busy == r)
      e->busy = NULL;
    int rc = 0;
    if (r->pinned[i].remove && !e->unlinked && e->dyn_refcount == 0 &&
        e->hold_refcount == 0) {
      report_info(INFO_MAPPING_CHANGED,
                  "Removing map entry with HstPtrBegin=0x%" PRIxPTR
                  ", TgtPtrBegin=0x%" PRIxPTR ", Size=%" PRIuPTR
                  ", Name=%s (after the asynchronous %s)",
                  e->hst_begin, e->tgt_begin, e->hst_end - e->hst_begin,
                  e->name[0] ? e->name : "unknown", r->what);
      rc = mapping_entry_remove(dev, e); /* still pinned: only unlinked */
    }
    /* The last in-flight user of a removed entry frees its device memory. */
    if (mapping_entry_unpin(dev, e) != 0)
      rc = -1;
    if (rc != 0 && ok) {
      snprintf(r->error, sizeof r->error,
               "%s: freeing the device memory of a removed mapping failed: %s",
               r->what, report_error_get());
      ok = false;
    }
  }
  pthread_mutex_unlock(&dev->map.lock);
  r->num_pinned = 0;
  r->num_restores = 0;
  for (size_t i = 0; i < r->device_frees.num; i++)
    if (device_delete(dev, r->device_frees.ptrs[i]) != 0 && ok) {
      snprintf(r->error, sizeof r->error,
               "%s: freeing a private device copy failed: %s", r->what,
               report_error_get());
      ok = false;
    }
  r->device_frees.num = 0;
  for (size_t i = 0; i < r->host_frees.num; i++)
    free(r->host_frees.ptrs[i]);
  r->host_frees.num = 0;
  r->status = ok ? ASYNC_DONE : ASYNC_FAILED;
  if (PROFILE_ON())
    profile_nowait_done(dev->id, r->profile_lane, r->what, r->loc, !ok,
                        r->profile_t0);
}

/* The completion callback, taken so that it runs exactly once, and outside
 * r->lock (it may release the record). Under r->lock. */
static void (*take_callback(struct async_record *r, void **param))(void *) {
  LOCK_ASSERT_HELD(&r->lock);
  void (*fn)(void *) = r->status != ASYNC_PENDING ? r->callback : NULL;
  if (fn)
    r->callback = NULL;
  *param = r->callback_param;
  return fn;
}

/* Asks the plugin about the queue. Under r->lock. */
static void queue_progress(struct async_record *r, bool block) {
  LOCK_ASSERT_HELD(&r->lock);
  const struct plugin_ops *ops = ops_of(r);
  int rc = OFFLOAD_SUCCESS;
  int32_t completed = 1;
  if (r->info.queue) {
    if (block || !ops->query_async) {
      rc = ops->synchronize
               ? RTL_CALL(ASYNC_SYNCHRONIZE, ops, synchronize)(r->dev->rtl_id,
                                                               &r->info)
               : OFFLOAD_SUCCESS;
    } else {
      rc = RTL_CALL(ASYNC_QUERY, ops, query_async)(r->dev->rtl_id, &r->info,
                                                   &completed);
    }
  }
  if (rc == OFFLOAD_SUCCESS && !completed)
    return;
  if (rc != OFFLOAD_SUCCESS) {
    char saved[sizeof r->error];
    snprintf(saved, sizeof saved, "%s", report_error_get());
    report_error_clear();
    report_error_set("device %d: the queued work of the asynchronous %s "
                     "failed",
                     r->dev->id, r->what);
    device_add_plugin_cause(r->dev);
    snprintf(r->error, sizeof r->error, "%s", report_error_get());
    report_error_clear();
    if (saved[0])
      report_error_set("%s", saved);
    r->status = ASYNC_FAILED;
    /* A plugin that failed a query may keep the queue: drain it. */
    if (r->info.queue && ops->synchronize)
      RTL_CALL(ASYNC_SYNCHRONIZE, ops, synchronize)(r->dev->rtl_id, &r->info);
  }
  if (r->traced)
    traced_work_record(r);
  run_deferred(r);
}

enum async_status async_record_poll(struct async_record *r) {
  if (pthread_mutex_trylock(&r->lock) != 0)
    return ASYNC_PENDING;
  if (r->status == ASYNC_PENDING)
    queue_progress(r, false);
  enum async_status s = r->status;
  void *param;
  void (*fn)(void *) = take_callback(r, &param);
  pthread_mutex_unlock(&r->lock);
  if (fn)
    fn(param);
  return s;
}

enum async_status async_record_wait(struct async_record *r) {
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  pthread_mutex_lock(&r->lock);
  bool waited = r->status == ASYNC_PENDING;
  if (waited)
    queue_progress(r, true);
  enum async_status s = r->status;
  if (PROFILE_ON() && waited)
    profile_wait(r->dev->id, r->what, r->loc, t0);
  void *param;
  void (*fn)(void *) = take_callback(r, &param);
  pthread_mutex_unlock(&r->lock);
  if (fn)
    fn(param);
  return s;
}

/* ---- the seed interface's records ------------------------------------ */

void async_track(struct async_record *r) {
  async_record_get(r);
  pthread_mutex_lock(&tracked_lock);
  r->next_tracked = tracked;
  tracked = r;
  pthread_mutex_unlock(&tracked_lock);
}

int async_process_pending(void) {
  /* Take the list, poll outside the lock, put back what is pending. */
  pthread_mutex_lock(&tracked_lock);
  struct async_record *list = tracked;
  tracked = NULL;
  pthread_mutex_unlock(&tracked_lock);
  int pending = 0;
  struct async_record *keep = NULL;
  while (list) {
    struct async_record *r = list;
    list = r->next_tracked;
    if (async_record_poll(r) == ASYNC_PENDING) {
      r->next_tracked = keep;
      keep = r;
      pending++;
    } else {
      async_record_put(r);
    }
  }
  if (keep) {
    pthread_mutex_lock(&tracked_lock);
    struct async_record *last = keep;
    while (last->next_tracked)
      last = last->next_tracked;
    last->next_tracked = tracked;
    tracked = keep;
    pthread_mutex_unlock(&tracked_lock);
  }
  return pending;
}

const char *async_record_what(struct async_record *r) { return r->what; }

const ident_t *async_record_location(struct async_record *r) {
  return r->loc;
}

/* How long program exit waits for the nowait regions still running. */
#define EXIT_WAIT_S 2

/* false once the deadline has passed; else sleeps a millisecond (the
 * exit's polls) and returns true. */
static bool nap_before(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (now.tv_sec > deadline->tv_sec ||
      (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec))
    return false;
  nanosleep(&(struct timespec){0, 1000000}, NULL);
  return true;
}

/* Polls r until it is no longer pending (true) or the deadline passes
 * (false). Never blocks on r->lock: another thread may hold it while it
 * waits on the same kernel. */
static bool record_ends_by(struct async_record *r,
                           const struct timespec *deadline) {
  do {
    if (pthread_mutex_trylock(&r->lock) == 0) {
      if (r->status == ASYNC_PENDING)
        queue_progress(r, false);
      bool ended = r->status != ASYNC_PENDING;
      pthread_mutex_unlock(&r->lock);
      if (ended)
        return true;
    }
  } while (nap_before(deadline));
  return false;
}

void async_record_set_in_task(struct async_record *r, bool in_task) {
  atomic_store(&r->in_task, in_task);
}

/* Waits until no libomp task holds r any more (__tgt_target_nowait_query
 * took it back, completing its task) or the deadline passes. Why: a task
 * still queued when libomp's own shutdown begins hung that shutdown (its
 * main thread spinning, its hidden helper threads asleep; 3 exits in 420
 * under load, nowait_running_exit_stack.c, libomp 22), where helpers that
 * poll the task now complete it first. */
static void task_ends_by(struct async_record *r,
                         const struct timespec *deadline) {
  while (atomic_load(&r->in_task))
    if (!nap_before(deadline)) {
      fprintf(stderr, "omptarget warning: libomp did not poll the task of "
                      "the `%s` construct to its end within %d s of the "
                      "program's exit: the program exits without it\n",
              r->what, EXIT_WAIT_S);
      return;
    }
}

/* A reference to r unless its last one was put already: that put waits for
 * r and then, behind live_lock, unlinks and frees it, so a reference taken
 * now would outlive the record. */
static bool get_unless_released(struct async_record *r) {
  int refs = atomic_load_explicit(&r->refs, memory_order_relaxed);
  while (refs > 0)
    if (atomic_compare_exchange_weak_explicit(&r->refs, &refs, refs + 1,
                                              memory_order_relaxed,
                                              memory_order_relaxed))
      return true;
  return false;
}

/* The program exits with regions still running: every plugin drops the
 * queued operations that have not started (their copies would read or
 * write host objects that may be gone, main's ended stack frame among
 * them); kernels already running run on. A plugin that cannot is said. */
static void abandon_queues(void) {
  for (int i = 0; i < plugins_count(); i++) {
    struct plugin *p = plugins_get(i);
    if (!p || !p->ops.abandon_queues)
      continue;
    if (RTL_CALL(ASYNC_ABANDON, &p->ops, abandon_queues)() != OFFLOAD_SUCCESS)
      fprintf(stderr, "omptarget warning: plugin %s could not drop the "
                      "queued work of the regions still running at the "
                      "program's exit (__tgt_rtl_abandon_queues failed): "
                      "their copies back may still run\n",
              p->name);
  }
}

int async_report_running_at_exit(void) {
  if (!atomic_flag_test_and_set(&exit_thread_set))
    exit_thread = pthread_self();
  atomic_store(&exit_started, true);
  struct async_record **held = NULL;
  size_t n = 0, cap = 0;
  bool reported = false;
  pthread_mutex_lock(&live_lock);
  for (struct async_record *r = live; r; r = r->live_next) {
    /* a record another thread is driving right now is running too */
    bool running = pthread_mutex_trylock(&r->lock) != 0;
    if (!running) {
      running = r->status == ASYNC_PENDING;
      pthread_mutex_unlock(&r->lock);
    }
    if (!running || atomic_exchange(&r->abandoned, true))
      continue; /* done, or said already */
    reported = true;
    char where[512], text[768];
    report_location(r->loc, where, sizeof where);
    snprintf(text, sizeof text, "the `%s` construct at %s was still running "
                                "on device %d when the program exited (no "
                                "taskwait waited for it): nothing more of it "
                                "runs on the host (its copies back are "
                                "dropped), and simtarget waits up to %d s "
                                "for its kernel before unloading the device "
                                "code",
             r->what, where, r->dev ? r->dev->id : -1, EXIT_WAIT_S);
    fprintf(stderr, "omptarget warning: %s\n", text);
    trace_note("running_at_exit", text);
    if (ARRAY_RESERVE(held, cap, n + 1) == 0 && get_unless_released(r))
      held[n++] = r;
  }
  pthread_mutex_unlock(&live_lock);
  if (reported)
    abandon_queues();
  /* Unloading the code of a running kernel fails (and the kernel faults, or
   * libomp's exit waits forever for a task that no thread polls any more):
   * let each end first, as a taskwait would have; but program exit does not
   * wait for device work that may never finish (an endless kernel). */
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += EXIT_WAIT_S;
  for (size_t i = 0; i < n; i++) {
    if (record_ends_by(held[i], &deadline)) {
      async_record_wait(held[i]); /* ended: only runs its completion */
      task_ends_by(held[i], &deadline);
    } else
      fprintf(stderr, "omptarget warning: the `%s` construct did not end "
                      "within %d s of the program's exit: the program exits "
                      "without it\n",
              held[i]->what, EXIT_WAIT_S);
    async_record_put(held[i]);
  }
  free(held);
  return (int)n;
}

bool async_record_abandoned(struct async_record *r) {
  return atomic_load(&r->abandoned);
}

bool async_exit_started(void) { return atomic_load(&exit_started); }

bool async_exit_started_elsewhere(void) {
  return atomic_load(&exit_started) &&
         !pthread_equal(exit_thread, pthread_self());
}
