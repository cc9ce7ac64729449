/*
 * async.c - asynchronous constructs: the plugin queue of one construct, its
 * deferred end-of-construct work, and the synchronise stage (async.h).
 *
 * Locking: record->lock guards the record's queue, state, error and
 * deferred lists (taken by whoever drives the record; the non-blocking poll
 * only try-locks it, so a task never waits behind another thread's wait).
 * Deferred table work takes dev->map.lock while holding record->lock; maps.c
 * never takes a record lock while holding the table lock (it drops the table
 * lock before waiting), so the order is always record -> table.
 * tracked_lock guards the list of the seed interface's records.
 */
#include "async.h"
#include "faults.h"
#include "maps.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct restore {
  uintptr_t addr, value;
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
  struct mapping_entry **entries; /* marked busy by this record */
  bool *remove;                   /* parallel to entries */
  size_t num_entries, cap_entries;
  void **device_frees;
  size_t num_device_frees, cap_device_frees;
  void **host_frees;
  size_t num_host_frees, cap_host_frees;
  void (*callback)(void *);
  void *callback_param;
  struct async_record *next_tracked;
};

static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;
static struct async_record *tracked;

/* Grow an array of `size`-byte elements to hold one more. 0 or -1. */
static int grow(void **array, size_t *cap, size_t num, size_t size) {
  if (num < *cap)
    return 0;
  size_t n = *cap ? *cap * 2 : 8;
  void *p = realloc(*array, n * size);
  if (!p)
    return -1;
  *array = p;
  *cap = n;
  return 0;
}

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
  pthread_mutex_init(&r->lock, NULL);
  return r;
}

void async_record_get(struct async_record *r) {
  __atomic_add_fetch(&r->refs, 1, __ATOMIC_RELAXED);
}

void async_record_put(struct async_record *r) {
  if (!r || __atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  async_record_wait(r);
  free(r->restores);
  free(r->entries);
  free(r->remove);
  free(r->device_frees);
  free(r->host_frees);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

struct device *async_record_device(struct async_record *r) { return r->dev; }

const char *async_record_error(struct async_record *r) { return r->error; }

/* ---- queueing -------------------------------------------------------- */

static const struct plugin_ops *ops_of(struct async_record *r) {
  return &r->dev->plugin->ops;
}

int async_submit(struct async_record *r, void *tgt, void *hst, int64_t size,
                 const char *name) {
  if (!ops_of(r)->data_submit_async)
    return device_submit_named(r->dev, tgt, hst, size, name);
  if (REPORT_INFO_ON(INFO_DATA_TRANSFER))
    report_info(INFO_DATA_TRANSFER,
                "Queueing copy from host to device, HstPtr=%p, TgtPtr=%p, "
                "Size=%" PRId64 ", Name=%s",
                hst, tgt, size, name && name[0] ? name : "unknown");
  pthread_mutex_lock(&r->lock);
  int rc = RTL_CALL(ASYNC_SUBMIT, ops_of(r), data_submit_async)(
      r->dev->rtl_id, tgt, hst, size, &r->info);
  pthread_mutex_unlock(&r->lock);
  if (rc != OFFLOAD_SUCCESS) {
    report_error_set("device %d: queueing a copy of %" PRId64
                     " bytes from host %p to device %p failed",
                     r->dev->id, size, hst, tgt);
    device_add_plugin_cause(r->dev);
    return -1;
  }
  return 0;
}

int async_retrieve(struct async_record *r, void *hst, void *tgt, int64_t size,
                   const char *name) {
  if (!ops_of(r)->data_retrieve_async)
    return device_retrieve_named(r->dev, hst, tgt, size, name);
  if (REPORT_INFO_ON(INFO_DATA_TRANSFER))
    report_info(INFO_DATA_TRANSFER,
                "Queueing copy from device to host, TgtPtr=%p, HstPtr=%p, "
                "Size=%" PRId64 ", Name=%s",
                tgt, hst, size, name && name[0] ? name : "unknown");
  pthread_mutex_lock(&r->lock);
  int rc = RTL_CALL(ASYNC_RETRIEVE, ops_of(r), data_retrieve_async)(
      r->dev->rtl_id, hst, tgt, size, &r->info);
  pthread_mutex_unlock(&r->lock);
  if (rc != OFFLOAD_SUCCESS) {
    report_error_set("device %d: queueing a copy of %" PRId64
                     " bytes from device %p to host %p failed",
                     r->dev->id, size, tgt, hst);
    device_add_plugin_cause(r->dev);
    return -1;
  }
  return 0;
}

int async_launch(struct async_record *r, const struct device_entry *kernel,
                 void **args, ptrdiff_t *offsets, int32_t num_args,
                 int32_t num_teams, int32_t thread_limit, uint64_t tripcount) {
  if (!ops_of(r)->run_target_team_region_async)
    return device_launch(r->dev, kernel, args, offsets, num_args, num_teams,
                         thread_limit, tripcount);
  pthread_mutex_lock(&r->lock);
  int rc = RTL_CALL(ASYNC_LAUNCH, ops_of(r), run_target_team_region_async)(
      r->dev->rtl_id, kernel->tgt_addr, args, offsets, num_args, num_teams,
      thread_limit, tripcount, &r->info);
  pthread_mutex_unlock(&r->lock);
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
  int rc = grow((void **)&r->restores, &r->cap_restores, r->num_restores,
                sizeof *r->restores);
  if (rc == 0)
    r->restores[r->num_restores++] = (struct restore){addr, value};
  pthread_mutex_unlock(&r->lock);
  return rc == 0 ? 0 : out_of_memory(r);
}

/* Appends `e` to the record's entries (each listing is one pin). */
static int list_entry(struct async_record *r, struct mapping_entry *e,
                      bool remove) {
  pthread_mutex_lock(&r->lock);
  size_t cap = r->cap_entries;
  int rc = grow((void **)&r->entries, &cap, r->num_entries,
                sizeof *r->entries);
  if (rc == 0 && cap != r->cap_entries) {
    bool *grown = realloc(r->remove, cap * sizeof *grown);
    if (!grown)
      rc = -1;
    else
      r->remove = grown;
  }
  if (rc == 0) {
    r->cap_entries = cap;
    r->entries[r->num_entries] = e;
    r->remove[r->num_entries++] = remove;
    e->pins++;
  }
  pthread_mutex_unlock(&r->lock);
  return rc == 0 ? 0 : out_of_memory(r);
}

int async_pin_entry(struct async_record *r, struct mapping_entry *e) {
  return list_entry(r, e, false);
}

int async_defer_entry(struct async_record *r, struct mapping_entry *e,
                      bool remove) {
  if (list_entry(r, e, remove) != 0)
    return -1;
  e->busy = r;
  return 0;
}

static int defer_pointer(struct async_record *r, void ***array, size_t *num,
                         size_t *cap, void *p) {
  pthread_mutex_lock(&r->lock);
  int rc = grow((void **)array, cap, *num, sizeof **array);
  if (rc == 0)
    (*array)[(*num)++] = p;
  pthread_mutex_unlock(&r->lock);
  return rc == 0 ? 0 : out_of_memory(r);
}

int async_defer_device_free(struct async_record *r, void *tgt) {
  return defer_pointer(r, &r->device_frees, &r->num_device_frees,
                       &r->cap_device_frees, tgt);
}

int async_defer_host_free(struct async_record *r, void *ptr) {
  return defer_pointer(r, &r->host_frees, &r->num_host_frees,
                       &r->cap_host_frees, ptr);
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
 * r->lock. A failure here (freeing device memory) fails the record. */
static void run_deferred(struct async_record *r) {
  struct device *dev = r->dev;
  bool ok = r->status != ASYNC_FAILED;
  pthread_mutex_lock(&dev->map.lock);
  /* A failed queue may not have copied back: then host pointers keep their
   * host values anyway, and restoring them is still right. */
  for (size_t i = 0; i < r->num_restores; i++)
    memcpy((void *)r->restores[i].addr, &r->restores[i].value,
           sizeof(void *));
  for (size_t i = 0; i < r->num_entries; i++) {
    struct mapping_entry *e = r->entries[i];
    if (e->busy == r)
      e->busy = NULL;
    int rc = 0;
    if (r->remove[i] && !e->unlinked && e->dyn_refcount == 0 &&
        e->hold_refcount == 0) {
      report_info(INFO_MAPPING_CHANGED,
                  "Removing map entry with HstPtrBegin=0x%" PRIxPTR
                  ", TgtPtrBegin=0x%" PRIxPTR ", Size=%" PRIuPTR
                  ", Name=%s (after the asynchronous %s)",
                  e->hst_begin, e->tgt_begin, e->hst_end - e->hst_begin,
                  e->name[0] ? e->name : "unknown", r->what);
      rc = maps_entry_remove(dev, e); /* still pinned: only unlinked */
    }
    /* The last in-flight user of a removed entry frees its device memory. */
    if (maps_entry_unpin(dev, e) != 0)
      rc = -1;
    if (rc != 0 && ok) {
      snprintf(r->error, sizeof r->error,
               "%s: freeing the device memory of a removed mapping failed: %s",
               r->what, report_error_get());
      ok = false;
    }
  }
  pthread_mutex_unlock(&dev->map.lock);
  r->num_entries = 0;
  r->num_restores = 0;
  for (size_t i = 0; i < r->num_device_frees; i++)
    if (device_delete(dev, r->device_frees[i]) != 0 && ok) {
      snprintf(r->error, sizeof r->error,
               "%s: freeing a private device copy failed: %s", r->what,
               report_error_get());
      ok = false;
    }
  r->num_device_frees = 0;
  for (size_t i = 0; i < r->num_host_frees; i++)
    free(r->host_frees[i]);
  r->num_host_frees = 0;
  r->status = ok ? ASYNC_DONE : ASYNC_FAILED;
}

/* The completion callback, taken so that it runs exactly once, and outside
 * r->lock (it may release the record). Under r->lock. */
static void (*take_callback(struct async_record *r, void **param))(void *) {
  void (*fn)(void *) = r->status != ASYNC_PENDING ? r->callback : NULL;
  if (fn)
    r->callback = NULL;
  *param = r->callback_param;
  return fn;
}

/* Asks the plugin about the queue. Under r->lock. */
static void queue_progress(struct async_record *r, bool block) {
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
  pthread_mutex_lock(&r->lock);
  if (r->status == ASYNC_PENDING)
    queue_progress(r, true);
  enum async_status s = r->status;
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
