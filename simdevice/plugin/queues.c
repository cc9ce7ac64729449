/*
 * queues.c - asynchronous queues of the simdevice plugin: data_submit_async,
 * data_retrieve_async, run_target_team_region_async, synchronize and the
 * non-blocking query_async (seed 004).
 *
 * A queue is a host-side list of operations run strictly in order. Nothing
 * runs in the background on the host: an operation starts when it reaches
 * the head of its queue, either in the call that enqueues it (an empty
 * queue) or in a later synchronize / query_async, which advance the queue as
 * far as it goes without waiting. Copies into device memory are memcpy into
 * the shared mapping and finish at once; a kernel takes a queue slot of the
 * device process (protocol.h), whose own server thread runs it (the first
 * post to a process has it start all its slots' threads), so kernels
 * of different queues run at the same time and the host thread that
 * launched one is free as soon as it is posted (the protection changes of
 * new allocations travel in the shared log, protocol.h, not through a round
 * trip). A queue whose kernel finds every slot busy keeps it pending and
 * posts it on a later call.
 *
 * Waiting without blocking: enqueue and query_async never wait for a
 * kernel whose run time is unknown or long while it is young (less than
 * QUERY_WAIT_US since its post), so the thread that launched it (a libomp
 * helper thread) goes on to launch the next region at once: waiting there
 * let 2 helper threads keep only 2 kernels in flight (bench_nowait.c). They
 * wait up to QUERY_WAIT_US for a kernel that ran shorter than
 * SHORT_KERNEL_NS last time (the server reports each kernel's run time):
 * it ends as soon as its thread has a CPU, and completing the region in the
 * call spares libomp a re-queue and re-run of the task, which on a busy
 * machine each wait for a CPU (nowait_threads.c). And they wait up to
 * QUERY_WAIT_US for a kernel that has run that long already: libomp polls
 * again at once from threads with nothing else to do, and polling without
 * a pause took the CPU from the device's own threads.
 *
 * Program exit (abandon_queues): libomptarget says when the program
 * exits with regions still queued that nothing waited for. From then on an
 * operation that has not started is dropped instead of run, in every queue
 * (its copies would read or write host objects that may be gone: main's
 * ended stack frame); a kernel already posted runs on, and its queue
 * completes when it ends, so the device code is unloaded after it.
 *
 * Errors: the first failing operation fails the queue; the operations after
 * it are dropped, and synchronize / query_async return OFFLOAD_FAIL with the
 * cause (get_last_error), on whichever thread calls them.
 *
 * Locking: a queue is used by one host thread at a time (the interface's
 * rule), so it has no lock. slot_pools[d].lock guards which queue slots of
 * device d are claimed; it is taken alone or inside channel_lock, never
 * around it. Posting a kernel takes the device's channel_lock (process
 * start/restart, images, the protection log, the queue threads' start) and
 * claims the slot inside it. Polling a posted kernel's slot takes no lock;
 * the liveness check between polls takes channel_lock (a non-blocking query
 * only when it is free, channel_queue_check_alive), and a queued copy takes
 * whatever __tgt_rtl_data_submit/retrieve take. run_hints are relaxed
 * atomics without a lock: a torn or overwritten hint only changes whether a
 * call waits, never a result.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lock_check.h"
#include "plugin_internal.h"

/* How long synchronize sleeps between liveness checks, and how often a
 * non-blocking query checks that the process of a busy slot still lives. */
#define WAIT_STEP_MS 100
#define QUERY_ALIVE_CHECK_NS (100 * 1000000LL)
/* How long a non-blocking query waits for a running kernel before saying
 * it is still running. */
#define QUERY_WAIT_US 1000L
/* A kernel that ran shorter than this last time is waited for (above). */
#define SHORT_KERNEL_NS (100 * 1000LL)
/* Run times remembered per device (by kernel address, hashed; a collision
 * overwrites: they are hints). */
#define RUN_HINTS 64

enum queue_op_kind { OP_SUBMIT, OP_RETRIEVE, OP_RUN };

struct queue_op {
  enum queue_op_kind kind;
  void *tgt, *host; /* copies */
  int64_t size;
  uint64_t kernel;  /* RUN: device address of the kernel */
  int32_t num_args, num_teams, thread_limit;
  uint32_t kargs_version; /* RUN: its KernelArgs version (0: older entry) */
  uint64_t *args;   /* RUN: the parameter values, already offset */
  uint64_t *times;  /* its start and end go here (OMPT tracing), or NULL */
  struct queue_op *next;
};

struct sim_queue {
  int32_t device_id;
  struct queue_op *head, *tail; /* head is the running or next operation */
  int slot;                     /* queue slot of the posted head RUN, or -1 */
  int short_kernel;             /* it ran shorter than SHORT_KERNEL_NS last time */
  uint64_t epoch;               /* the device's death epoch at that post */
  char kernel_name[SIMDEV_KERNEL_NAME_SIZE];
  int64_t last_alive_check_ns;
  int64_t posted_ns;            /* when the running kernel was posted */
  int device_stopped;           /* the last check found the process stopped */
  int failed;
  __tgt_rtl_error error; /* the first failure, re-reported on sync/query */
};

struct slot_pool {
  pthread_mutex_t lock;
  unsigned char used[SIMDEV_QUEUE_SLOTS];
};

/* Set once by abandon_queues (the program exits): operations not yet
 * started are dropped. */
static _Atomic int queues_abandoned;

static struct slot_pool slot_pools[PLUGIN_MAX_DEVICES] = {
    [0 ... PLUGIN_MAX_DEVICES - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};

/* The last run time of a kernel, as its server measured it. */
struct run_hint {
  _Atomic uint64_t kernel; /* device address; 0: none */
  _Atomic uint64_t ns;
};
static struct run_hint run_hints[PLUGIN_MAX_DEVICES][RUN_HINTS];

static struct run_hint *run_hint_of(int32_t id, uint64_t kernel) {
  return &run_hints[id][(kernel >> 4) % RUN_HINTS];
}

static void run_hint_record(int32_t id, uint64_t kernel, uint64_t ns) {
  struct run_hint *h = run_hint_of(id, kernel);
  atomic_store_explicit(&h->ns, ns, memory_order_relaxed);
  atomic_store_explicit(&h->kernel, kernel, memory_order_relaxed);
}

static int run_hint_short(int32_t id, uint64_t kernel) {
  struct run_hint *h = run_hint_of(id, kernel);
  return atomic_load_explicit(&h->kernel, memory_order_relaxed) == kernel &&
         atomic_load_explicit(&h->ns, memory_order_relaxed) <
             (uint64_t)SHORT_KERNEL_NS;
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A free queue slot of device `id` below `limit`, claimed; -1 when all
 * are busy. */
static int slot_claim(int32_t id, int limit) {
  struct slot_pool *p = &slot_pools[id];
  int found = -1;
  pthread_mutex_lock(&p->lock);
  /* Lowest free first: their server threads ran last and are warmest. */
  for (int i = 0; i < limit; i++) {
    if (!p->used[i]) {
      p->used[i] = 1;
      found = i;
      break;
    }
  }
  pthread_mutex_unlock(&p->lock);
  return found;
}

static void slot_release(int32_t id, int index) {
  struct slot_pool *p = &slot_pools[id];
  pthread_mutex_lock(&p->lock);
  p->used[index] = 0;
  pthread_mutex_unlock(&p->lock);
}

/* ---- failure bookkeeping ------------------------------------------------ */

/* Moves this thread's recorded error into the queue (first failure only)
 * and drops the operations that have not run. */
static void queue_fail(struct sim_queue *q) {
  __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  plugin_error_take(&err);
  if (!q->failed)
    q->error = err;
  q->failed = 1;
  while (q->head) {
    struct queue_op *op = q->head;
    q->head = op->next;
    free(op->args);
    free(op);
  }
  q->tail = NULL;
}

/* Records the queue's failure as this thread's error, for get_last_error. */
static void queue_report(const struct sim_queue *q) {
  plugin_error_fault(q->error.fault_addr, q->error.fault_kind,
                     q->error.device_lost, "%s",
                     q->error.message[0] ? q->error.message
                                         : "simdevice: an asynchronous "
                                           "operation failed");
}

static void queue_free(struct sim_queue *q) {
  if (q->slot >= 0) {
    /* Only after a death (the slot can never answer) or a failed post. */
    slot_release(q->device_id, q->slot);
    q->slot = -1;
  }
  while (q->head) {
    struct queue_op *op = q->head;
    q->head = op->next;
    free(op->args);
    free(op);
  }
  free(q);
}

/* ---- running the head operation ----------------------------------------- */

/* Has the device process start its queue slots' server threads, once per
 * process, before the first post (protocol.h). Under channel_lock. */
static int queue_threads_start(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (dev->queue_threads > 0)
    return 0;
  dev->ctl->slot.a[0] = SIMDEV_QUEUE_SLOTS;
  if (channel_send(dev, SIMDEV_CMD_START_QUEUES, NULL) != 0)
    return -1;
  uint64_t started = dev->ctl->slot.a[0];
  dev->queue_threads = started < SIMDEV_QUEUE_SLOTS ? (int)started
                                                    : SIMDEV_QUEUE_SLOTS;
  return 0;
}

/* Posts the head RUN on a free queue slot. 0 posted, 1 no slot free (try
 * again later), -1 failed (error recorded). */
static int post_run(struct sim_queue *q, const struct queue_op *op) {
  struct sim_device *dev = device_get(q->device_id);
  if (dev == NULL)
    return -1;
  int index = -1;
  uint64_t epoch = atomic_load(&dev->death_epoch);
  pthread_mutex_lock(&dev->channel_lock);
  if (device_setup(dev) != 0 || channel_begin(dev, epoch) != 0 ||
      indirect_resync(dev) != 0 || device_follow_credentials(dev) != 0 ||
      queue_threads_start(dev) != 0)
    goto out_fail;
  index = slot_claim(q->device_id, dev->queue_threads);
  if (index < 0) {
    pthread_mutex_unlock(&dev->channel_lock);
    return 1;
  }
  const struct kernel_ref *k = images_find_kernel(dev, op->kernel);
  if (k == NULL) {
    plugin_error("simdevice: asynchronous launch on device %d of 0x%llx, "
                 "which is not a kernel of any loaded image",
                 q->device_id, (unsigned long long)op->kernel);
    goto out_fail;
  }
  enum simdev_call call;
  if (plugin_kernel_call(k, op->kargs_version, q->device_id, &call) != 0)
    goto out_fail;
  /* The slot's thread must see every allocation made so far accessible:
   * it applies the protection log up to here before the kernel runs. */
  uint64_t prot_upto;
  if (channel_log_protections(dev, &prot_upto) != 0)
    goto out_fail;
  struct simdev_slot *s = &dev->ctl->queues[index];
  if (atomic_load(&s->state) != SIMDEV_SLOT_IDLE) {
    plugin_error("simdevice: device %d: queue slot %d is not idle (state %u)",
                 q->device_id, index, (unsigned)atomic_load(&s->state));
    goto out_fail;
  }
  s->prot_upto = prot_upto;
  memcpy(s->args, op->args, (size_t)op->num_args * sizeof s->args[0]);
  s->a[0] = k->addr;
  s->a[1] = (uint64_t)op->num_args;
  s->a[2] = (uint64_t)(int64_t)op->num_teams;
  s->a[3] = (uint64_t)(int64_t)op->thread_limit;
  s->a[4] = UINT64_MAX; /* the run time, in the reply */
  s->a[5] = (uint64_t)call;
  q->short_kernel = run_hint_short(q->device_id, op->kernel);
  snprintf(q->kernel_name, sizeof q->kernel_name, "%s",
           k->name ? k->name : "?");
  q->epoch = atomic_load(&dev->death_epoch);
  q->slot = index;
  q->last_alive_check_ns = q->posted_ns = now_ns();
  channel_queue_post(dev, index);
  pthread_mutex_unlock(&dev->channel_lock);
  return 0;
out_fail:
  pthread_mutex_unlock(&dev->channel_lock);
  if (index >= 0)
    slot_release(q->device_id, index);
  return -1;
}

static void pop_head(struct sim_queue *q) {
  struct queue_op *op = q->head;
  q->head = op->next;
  if (!q->head)
    q->tail = NULL;
  free(op->args);
  free(op);
}

/* What one step of queue_advance left: go on with the queue's head, or
 * return (work still pending), or the queue failed, or its kernel's device
 * process died (the slot never answers; a restarted process starts it
 * IDLE). */
enum queue_step { STEP_AGAIN, STEP_PENDING, STEP_FAILED, STEP_DEAD };

/* A queued copy, done now through the plugin's entry points; its start and
 * end in `times` when __tgt_rtl_time_next_op asked for them (else NULL). */
static int32_t copy_timed(int32_t id, enum queue_op_kind kind, void *tgt,
                          void *host, int64_t size, uint64_t *times) {
  const int64_t start = times ? now_ns() : 0;
  int32_t rc = kind == OP_SUBMIT ? __tgt_rtl_data_submit(id, tgt, host, size)
                                 : __tgt_rtl_data_retrieve(id, host, tgt, size);
  if (rc == OFFLOAD_SUCCESS && times) {
    times[0] = (uint64_t)start;
    times[1] = (uint64_t)now_ns();
  }
  return rc;
}

/* The copy at the head of q. */
static enum queue_step advance_copy(struct sim_queue *q, struct queue_op *op) {
  if (copy_timed(q->device_id, op->kind, op->tgt, op->host, op->size,
                 op->times) != OFFLOAD_SUCCESS)
    return STEP_FAILED;
  pop_head(q);
  return STEP_AGAIN;
}

/* The kernel of q's slot has answered: its reply taken, the slot free. */
static enum queue_step run_finish(struct sim_queue *q, struct queue_op *op,
                                  struct sim_device *dev) {
  run_hint_record(q->device_id, op->kernel, dev->ctl->queues[q->slot].a[4]);
  const uint64_t start = dev->ctl->queues[q->slot].a[6];
  const uint64_t end = dev->ctl->queues[q->slot].a[7];
  int rc = channel_queue_take_reply(dev, q->slot);
  if (rc == 0 && op->times != NULL) {
    op->times[0] = start;
    op->times[1] = end;
  }
  slot_release(q->device_id, q->slot);
  q->slot = -1;
  if (rc != 0)
    return STEP_FAILED;
  pop_head(q);
  return STEP_AGAIN;
}

/* Without blocking: the kernel of q's slot still runs. Waits a little for
 * it, or, every QUERY_ALIVE_CHECK_NS, checks that its device lives. */
static enum queue_step run_poll(struct sim_queue *q, struct sim_device *dev) {
  int64_t t = now_ns();
  if (!q->device_stopped &&
      t - q->last_alive_check_ns < QUERY_ALIVE_CHECK_NS) {
    /* Wait for a short kernel or a long-running one, not for a young one
     * of unknown or long run time (the top of this file); the server wakes
     * a sleeping host when the kernel ends. */
    int64_t age_us = (t - q->posted_ns) / 1000;
    if (!q->short_kernel && age_us < QUERY_WAIT_US)
      return STEP_PENDING;
    channel_queue_sleep(dev, q->slot,
                        q->short_kernel && age_us < QUERY_WAIT_US
                            ? QUERY_WAIT_US - age_us
                            : QUERY_WAIT_US);
    if (channel_queue_state(dev, q->slot) == SIMDEV_SLOT_REQUEST)
      return STEP_PENDING;
    return STEP_AGAIN;
  }
  q->last_alive_check_ns = t;
  int alive = channel_queue_check_alive(dev, q->epoch, q->kernel_name,
                                        t - q->posted_ns, 0);
  q->device_stopped = alive > 0;
  if (alive > 0) {
    /* Stopped: libomp polls again at once; do not make it spin. */
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 50 * 1000000L};
    nanosleep(&pause, NULL);
  }
  return alive >= 0 ? STEP_PENDING : STEP_DEAD;
}

/* Blocking: waits a step for the kernel of q's slot, checking that its
 * device lives. */
static enum queue_step run_wait(struct sim_queue *q, struct sim_device *dev) {
  channel_queue_sleep(dev, q->slot, WAIT_STEP_MS * 1000L);
  if (channel_queue_state(dev, q->slot) != SIMDEV_SLOT_REQUEST ||
      channel_queue_check_alive(dev, q->epoch, q->kernel_name,
                                now_ns() - q->posted_ns, 1) >= 0)
    return STEP_AGAIN;
  return STEP_DEAD;
}

/* The kernel at the head of q: posted to a queue slot when it has none
 * yet, then finished, waited for (`block`) or polled. */
static enum queue_step advance_run(struct sim_queue *q, struct queue_op *op,
                                   int block) {
  if (q->slot < 0) {
    int posted = post_run(q, op);
    if (posted < 0)
      return STEP_FAILED;
    if (posted > 0) { /* every slot busy */
      if (!block)
        return STEP_PENDING;
      struct timespec t = {.tv_sec = 0, .tv_nsec = 1000000L};
      nanosleep(&t, NULL);
      return STEP_AGAIN;
    }
  }
  struct sim_device *dev = device_get(q->device_id);
  if (dev == NULL)
    return STEP_FAILED;
  uint32_t st = channel_queue_state(dev, q->slot);
  if (st == SIMDEV_SLOT_DONE && atomic_load(&dev->death_epoch) == q->epoch)
    return run_finish(q, op, dev);
  if (st == SIMDEV_SLOT_REQUEST && atomic_load(&dev->death_epoch) == q->epoch)
    return block ? run_wait(q, dev) : run_poll(q, dev);
  /* The process died (and may have restarted, clearing the slot). */
  channel_queue_check_alive(dev, q->epoch, q->kernel_name,
                            now_ns() - q->posted_ns, 1);
  if (atomic_load(&dev->death_epoch) == q->epoch)
    plugin_error("simdevice: device %d: queue slot %d is in state %u "
                 "while kernel `%s` runs",
                 q->device_id, q->slot, (unsigned)st, q->kernel_name);
  return STEP_DEAD;
}

/*
 * Runs the queue as far as it goes. With `block`, until it is empty (or
 * failed); without, until the head is a kernel still running (or waiting
 * for a slot). Returns 1 when the queue is empty or failed, 0 when work is
 * still pending.
 */
static int queue_advance(struct sim_queue *q, int block) {
  while (q->head && !q->failed) {
    struct queue_op *op = q->head;
    if (atomic_load(&queues_abandoned) && (op->kind != OP_RUN || q->slot < 0)) {
      pop_head(q); /* not started: dropped (the top of this file) */
      continue;
    }
    enum queue_step step = op->kind != OP_RUN ? advance_copy(q, op)
                                              : advance_run(q, op, block);
    if (step == STEP_AGAIN)
      continue;
    if (step == STEP_PENDING)
      return 0;
    if (step == STEP_DEAD) {
      /* The slot never answers; a restarted process starts it IDLE. */
      slot_release(q->device_id, q->slot);
      q->slot = -1;
    }
    queue_fail(q);
    break;
  }
  return 1;
}

/* ---- enqueueing ------------------------------------------------------- */

/* The queue of `info`, created on first use. NULL with an error. */
static struct sim_queue *queue_of(int32_t id, __tgt_async_info *info,
                                  const char *what) {
  if (info == NULL) {
    plugin_error("simdevice: %s on device %d without an async_info", what, id);
    return NULL;
  }
  if (device_get(id) == NULL)
    return NULL;
  struct sim_queue *q = info->queue;
  if (q != NULL) {
    if (q->device_id != id) {
      plugin_error("simdevice: %s on device %d with a queue of device %d",
                   what, id, q->device_id);
      return NULL;
    }
    return q;
  }
  q = calloc(1, sizeof *q);
  if (q == NULL) {
    plugin_error("simdevice: no host memory for an asynchronous queue");
    return NULL;
  }
  q->device_id = id;
  q->slot = -1;
  info->queue = q;
  return q;
}

/* Appends `op` (taking it) and starts it when the queue was idle. Returns
 * OFFLOAD_FAIL when the operation ran at once and failed (the queue then
 * reports the failure again on synchronize / query_async). */
static int32_t enqueue(struct sim_queue *q, struct queue_op *op) {
  if (q->failed || atomic_load(&queues_abandoned)) {
    free(op->args);
    free(op);
    return OFFLOAD_SUCCESS; /* dropped: a failure reported by the queue,
                               or the program exits */
  }
  if (q->tail)
    q->tail->next = op;
  else
    q->head = op;
  q->tail = op;
  queue_advance(q, 0);
  if (q->failed) {
    queue_report(q);
    return OFFLOAD_FAIL;
  }
  return OFFLOAD_SUCCESS;
}

static int32_t enqueue_copy(int32_t id, enum queue_op_kind kind, void *tgt,
                            void *host, int64_t size, __tgt_async_info *info) {
  uint64_t *times = plugin_take_timing(id);
  const char *what = kind == OP_SUBMIT ? "data_submit_async"
                                       : "data_retrieve_async";
  struct sim_queue *q = queue_of(id, info, what);
  if (q == NULL)
    return OFFLOAD_FAIL;
  if (size < 0 || (size > 0 && host == NULL)) {
    plugin_error("simdevice: %s of %lld bytes with host address %p", what,
                 (long long)size, host);
    return OFFLOAD_FAIL;
  }
  struct queue_op *op = calloc(1, sizeof *op);
  if (op == NULL) {
    plugin_error("simdevice: no host memory for a queued copy");
    return OFFLOAD_FAIL;
  }
  op->kind = kind;
  op->tgt = tgt;
  op->host = host;
  op->size = size;
  op->times = times;
  return enqueue(q, op);
}

/* ------------------------------------------------------------------ API */

int32_t __tgt_rtl_data_submit_async(int32_t id, void *tgt_ptr, void *hst_ptr,
                                    int64_t size, __tgt_async_info *info) {
  if (usm_active()) /* in the host process: done at once (usm.c) */
    return copy_timed(id, OP_SUBMIT, tgt_ptr, hst_ptr, size,
                      plugin_take_timing(id));
  return enqueue_copy(id, OP_SUBMIT, tgt_ptr, hst_ptr, size, info);
}

int32_t __tgt_rtl_data_retrieve_async(int32_t id, void *hst_ptr,
                                      void *tgt_ptr, int64_t size,
                                      __tgt_async_info *info) {
  if (usm_active())
    return copy_timed(id, OP_RETRIEVE, tgt_ptr, hst_ptr, size,
                      plugin_take_timing(id));
  return enqueue_copy(id, OP_RETRIEVE, tgt_ptr, hst_ptr, size, info);
}

/* An asynchronous launch with its KernelArgs version (0: older entry
 * points), for run_target_team_region_async and run_target_kernel. */
static int32_t run_async(int32_t id, void *tgt_entry_ptr, void **tgt_args,
                         ptrdiff_t *tgt_offsets, int32_t arg_num,
                         int32_t num_teams, int32_t thread_limit,
                         uint32_t kargs_version, __tgt_async_info *info) {
  uint64_t *times = plugin_take_timing(id);
  if (usm_active())
    return plugin_run_sync(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                           num_teams, thread_limit, kargs_version, times);
  output_host_flush();
  if (arg_num < 0 || arg_num > SIMDEV_PROTO_MAX_ARGS ||
      (arg_num > 0 && (tgt_args == NULL || tgt_offsets == NULL))) {
    plugin_error("simdevice: an asynchronous kernel launch on device %d with "
                 "%d arguments: simdevice passes 0 to %d",
                 id, arg_num, SIMDEV_PROTO_MAX_ARGS);
    return OFFLOAD_FAIL;
  }
  struct sim_queue *q = queue_of(id, info, "run_target_team_region_async");
  if (q == NULL)
    return OFFLOAD_FAIL;
  if (record_on()) { /* SIMTARGET_RECORD: in order, synchronously */
    if (atomic_load(&queues_abandoned))
      return OFFLOAD_SUCCESS; /* the program exits: dropped */
    queue_advance(q, 1);
    if (q->failed) {
      queue_report(q);
      return OFFLOAD_FAIL;
    }
    return plugin_run_sync(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                           num_teams, thread_limit, kargs_version, times);
  }
  struct queue_op *op = calloc(1, sizeof *op);
  uint64_t *args = calloc((size_t)arg_num + 1, sizeof *args);
  if (op == NULL || args == NULL) {
    free(op);
    free(args);
    plugin_error("simdevice: no host memory for a queued kernel launch");
    return OFFLOAD_FAIL;
  }
  for (int32_t i = 0; i < arg_num; i++)
    args[i] = (uint64_t)((char *)tgt_args[i] + tgt_offsets[i]);
  op->kind = OP_RUN;
  op->kernel = (uint64_t)tgt_entry_ptr;
  op->num_args = arg_num;
  op->num_teams = num_teams;
  op->thread_limit = thread_limit;
  op->kargs_version = kargs_version;
  op->args = args;
  op->times = times;
  return enqueue(q, op);
}

int32_t __tgt_rtl_run_target_team_region_async(
    int32_t id, void *tgt_entry_ptr, void **tgt_args, ptrdiff_t *tgt_offsets,
    int32_t arg_num, int32_t num_teams, int32_t thread_limit,
    uint64_t loop_tripcount, __tgt_async_info *info) {
  (void)loop_tripcount;
  return run_async(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                   num_teams, thread_limit, 0, info);
}

/* KernelArgs version 4+ (clang 23): called as the image and the version
 * say (plugin_kernel_call); async_info NULL: synchronously. */
int32_t __tgt_rtl_run_target_kernel(int32_t id, void *tgt_entry_ptr,
                                    void **tgt_args, ptrdiff_t *tgt_offsets,
                                    int32_t arg_num, int32_t num_teams,
                                    int32_t thread_limit,
                                    uint64_t loop_tripcount,
                                    uint32_t kargs_version,
                                    __tgt_async_info *async_info) {
  (void)loop_tripcount;
  if (async_info)
    return run_async(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                     num_teams, thread_limit, kargs_version, async_info);
  return plugin_run_sync(id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num,
                         num_teams, thread_limit, kargs_version,
                         plugin_take_timing(id));
}

int32_t __tgt_rtl_synchronize(int32_t id, __tgt_async_info *info) {
  if (info == NULL) {
    plugin_error("simdevice: synchronize on device %d without an async_info",
                 id);
    return OFFLOAD_FAIL;
  }
  struct sim_queue *q = info->queue;
  if (q == NULL)
    return OFFLOAD_SUCCESS;
  queue_advance(q, 1);
  int failed = q->failed;
  if (failed)
    queue_report(q);
  queue_free(q);
  info->queue = NULL;
  return failed ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_query_async(int32_t id, __tgt_async_info *info,
                              int32_t *is_completed) {
  if (info == NULL || is_completed == NULL) {
    plugin_error("simdevice: query_async on device %d without %s", id,
                 info == NULL ? "an async_info" : "a completion flag");
    return OFFLOAD_FAIL;
  }
  struct sim_queue *q = info->queue;
  *is_completed = 1;
  if (q == NULL)
    return OFFLOAD_SUCCESS;
  if (!queue_advance(q, 0)) {
    *is_completed = 0;
    return OFFLOAD_SUCCESS;
  }
  int failed = q->failed;
  if (failed)
    queue_report(q);
  queue_free(q);
  info->queue = NULL;
  return failed ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_abandon_queues(void) {
  atomic_store(&queues_abandoned, 1);
  return OFFLOAD_SUCCESS;
}
