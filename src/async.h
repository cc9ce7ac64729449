/*
 * async.h - one asynchronous construct (a `target nowait`, a nowait data
 * construct, or a call of the seed's asynchronous interface): its plugin
 * queue and the end-of-construct work that must wait until the queue has
 * completed (seed 004's split into a dispatch and a synchronise stage).
 *
 * Deferred work, run once, in this order, when the queue completes:
 * host pointer values restored after copies back (shadow pointers), mapping
 * entries whose counts reached zero removed (and their device memory freed),
 * `busy` markers of the entries this construct touched cleared, the
 * construct's private device copies freed, host buffers freed, and the
 * seed's completion callback called.
 *
 * Every entry the record's queued work uses is pinned (mapping_entry.pins)
 * until then, so its device memory outlives a removal by another construct.
 * A mapping entry whose copy back or removal is queued carries
 * entry->busy = the record; maps.c makes any other construct wait for that
 * record before it touches the entry (async_record_wait, without the table
 * lock).
 *
 * Thread safety: a record's queue and state are guarded by its own `lock`
 * (a waiting construct and the owning task may drive it from two threads).
 * The dispatch stage (queueing, async_pin_entry, async_defer_*) takes it
 * under dev->map.lock; the synchronise stage (poll/wait) takes
 * dev->map.lock under it for the deferred table work. Both orders are safe
 * because no other thread touches a record while it is being dispatched
 * (the proof is at the top of async.c); so never call progress/wait with
 * the table lock held, and hand a record to other threads only when its
 * dispatch is done. References are atomic. The list of the seed interface's
 * records in flight has its own lock (async.c).
 */
#ifndef SIMTARGET_ASYNC_H
#define SIMTARGET_ASYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"

struct async_record;

/* A new record for a construct on `dev` ("target", "target exit data"...),
 * holding one reference. NULL (with report_error_set) out of memory. */
HIDDEN struct async_record *async_record_new(struct device *dev,
                                             const char *what,
                                             const ident_t *loc);
HIDDEN void async_record_get(struct async_record *r);
/* Drops a reference; the last one frees the record. A record still pending
 * is first waited for (nothing it queued may outlive it). */
HIDDEN void async_record_put(struct async_record *r);

/* ---- queueing (each: 0, or -1 with report_error_set naming the
 * operation). A plugin without the async functions runs them at once. ---- */
HIDDEN int async_submit(struct async_record *r, void *tgt, void *hst,
                        int64_t size, const char *name);
HIDDEN int async_retrieve(struct async_record *r, void *hst, void *tgt,
                          int64_t size, const char *name);
/* device_submit_pointer, queued: `value` must live until the record
 * completes. */
HIDDEN int async_submit_pointer(struct async_record *r, void *tgt,
                                void *value, const void *hst_ptr_addr,
                                const char *name);
HIDDEN int async_launch(struct async_record *r,
                        const struct device_entry *kernel, void **args,
                        ptrdiff_t *offsets, int32_t num_args,
                        int32_t num_teams, int32_t thread_limit,
                        uint64_t tripcount, uint32_t kargs_version);

/* ---- deferred work (0, or -1 out of memory with report_error_set) ---- */
/* Restore 8 bytes of host memory at `addr` to `value` (a shadow pointer). */
HIDDEN int async_defer_restore(struct async_record *r, uintptr_t addr,
                               uintptr_t value);
/* Pin `e` (mapping_entry.pins) until this record completes: its device
 * memory outlives the record's queued work even if another construct
 * removes the entry meanwhile. Caller holds dev->map.lock. */
HIDDEN int async_pin_entry(struct async_record *r, struct mapping_entry *e);
/* Pin `e` and mark it busy until this record completes; with `remove`,
 * remove it then if its counts are still zero. Caller holds dev->map.lock. */
HIDDEN int async_defer_entry(struct async_record *r, struct mapping_entry *e,
                             bool remove);
/* Free device memory `tgt` (a private copy) after completion. */
HIDDEN int async_defer_device_free(struct async_record *r, void *tgt);
/* free(ptr) after completion (argument arrays the plugin may still read). */
HIDDEN int async_defer_host_free(struct async_record *r, void *ptr);
/* Call `fn(param)` once, after the deferred work (seed callback). */
HIDDEN void async_set_callback(struct async_record *r, void (*fn)(void *),
                               void *param);

/* ---- the synchronise stage -------------------------------------------- */
enum async_status { ASYNC_PENDING = 0, ASYNC_DONE = 1, ASYNC_FAILED = -1 };
/* Advance without waiting (PENDING when work remains, or when another
 * thread is driving the record right now). */
HIDDEN enum async_status async_record_poll(struct async_record *r);
/* Wait until the record completes; DONE or FAILED. */
HIDDEN enum async_status async_record_wait(struct async_record *r);
/* Why a FAILED record failed ("" otherwise). */
HIDDEN const char *async_record_error(struct async_record *r);
HIDDEN struct device *async_record_device(struct async_record *r);
/* The construct and its source location, for a failure found later. */
HIDDEN const char *async_record_what(struct async_record *r);
HIDDEN const ident_t *async_record_location(struct async_record *r);

/* ---- records of the seed's asynchronous interface --------------------- */
/* Track `r` (one more reference) for async_process_pending. */
HIDDEN void async_track(struct async_record *r);
/* Poll every tracked record, drop the completed ones. Returns how many are
 * still pending. */
HIDDEN int async_process_pending(void);

/* ---- the program's exit ------------------------------------------------ */
/* Say (stderr, and a trace note) which asynchronous constructs are still
 * running now that the program exits, naming each construct and its
 * source location, mark them abandoned, and wait for them to end (their
 * device code is about to be unloaded). Returns how many. Call it without
 * any lock held. */
HIDDEN int async_report_running_at_exit(void);
/* Whether `r` was still running at exit: its later failure (the device
 * released under it) is no failure of the program's. */
HIDDEN bool async_record_abandoned(struct async_record *r);
/* `r` is in a libomp task's asynchronous handle (set: finish_nowait handed
 * it over; cleared: __tgt_target_nowait_query took it back, completing the
 * task). The exit waits for the take-back of each record it waited for. */
HIDDEN void async_record_set_in_task(struct async_record *r, bool in_task);
/* Whether the program began to exit (async_report_running_at_exit ran):
 * a nowait construct whose task starts now finds its code unloaded. */
HIDDEN bool async_exit_started(void);
/* The exit began on another host thread (it unloads the device code and
 * releases the devices under this one). */
HIDDEN bool async_exit_started_elsewhere(void);

#endif
