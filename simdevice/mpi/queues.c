/*
 * queues.c - the asynchronous entry points of remote devices: copies and
 * kernels of `nowait` constructs. Each device has one worker thread
 * (started at its first asynchronous operation) that runs the operations
 * posted to it in order, through the synchronous calls of host.c, so the
 * posting thread goes on at once and constructs on different devices run
 * at the same time. A device rank serves one request at a time, so a
 * device's operations run one after another whatever their queue.
 *
 * A copy whose queue has nothing before it runs at once in the posting
 * call when no other call holds the device (copy_async).
 *
 * A queue (__tgt_async_info.queue) counts its operations not yet done and
 * keeps the first failure's error; synchronize waits for the count to reach
 * zero, query_async only looks, and both release the queue once it has.
 *
 * Program exit (abandon_queues): from then on an operation not yet
 * started is dropped, neither run nor failed, in every queue (its copies
 * would read or write host objects that may be gone: main's ended stack
 * frame); the one running (its request sent) runs on, and its queue
 * completes when it ends. Only the host has queues: a rank runs each
 * request as it comes.
 *
 * OMPT device tracing: the times array armed by time_next_op for a queued
 * operation travels with it, and the worker stores the rank's times there
 * before the queue's count falls (synchronize reads them after).
 *
 * Locking: one mutex and two condition variables for all of it (the list
 * of each device, each queue's count); the operations themselves run
 * without it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "link.h"

enum op_kind { OP_SUBMIT, OP_RETRIEVE, OP_RUN };

struct queue {
  int pending;  /* operations posted, not finished */
  int failed;   /* one of them failed: the rest are skipped */
  __tgt_rtl_error error; /* the first failure's */
};

struct op {
  enum op_kind kind;
  struct queue *q;
  void *tgt, *hst;
  int64_t size;
  int32_t nargs, teams, limit;
  uint32_t kargs_version; /* OP_RUN: its KernelArgs version (0: older) */
  void **args; /* OP_RUN: the arguments' values (offsets applied) */
  uint64_t *times; /* its start and end on the rank go here, or NULL */
  struct op *next;
};

/* Set once by abandon_queues (the program exits): operations not yet
 * started are dropped. */
static _Atomic int abandoned;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER; /* a list grew */
static pthread_cond_t done = PTHREAD_COND_INITIALIZER; /* a count fell */
static struct op *head[TOPOLOGY_MAX_DEVICES], *tail[TOPOLOGY_MAX_DEVICES];
static int started[TOPOLOGY_MAX_DEVICES];

static int run_op(int32_t id, struct op *o) {
  switch (o->kind) {
  case OP_SUBMIT:
    return host_copy_timed(id, o->tgt, o->hst, o->size, 1, o->times);
  case OP_RETRIEVE:
    return host_copy_timed(id, o->tgt, o->hst, o->size, 0, o->times);
  case OP_RUN: {
    ptrdiff_t *offsets = calloc(o->nargs > 0 ? (size_t)o->nargs : 1,
                                sizeof *offsets);
    int rc = offsets == NULL
                 ? OFFLOAD_FAIL
                 : host_run(id, o->tgt, o->args, offsets, o->nargs, o->teams,
                            o->limit, o->kargs_version, o->times);
    free(offsets);
    return rc;
  }
  }
  return OFFLOAD_FAIL;
}

static void *worker(void *arg) {
  int32_t id = (int32_t)(intptr_t)arg;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (head[id] == NULL)
      pthread_cond_wait(&work, &lock);
    struct op *o = head[id];
    head[id] = o->next;
    if (head[id] == NULL)
      tail[id] = NULL;
    int skip = o->q->failed;
    int drop = atomic_load(&abandoned); /* the program exits: not run */
    pthread_mutex_unlock(&lock);
    int rc = drop ? OFFLOAD_SUCCESS : skip ? OFFLOAD_FAIL : run_op(id, o);
    __tgt_rtl_error err;
    if (rc != OFFLOAD_SUCCESS && !skip)
      __tgt_rtl_get_last_error(id, &err);
    pthread_mutex_lock(&lock);
    if (rc != OFFLOAD_SUCCESS && !skip && !o->q->failed) {
      o->q->failed = 1;
      o->q->error = err;
    }
    o->q->pending--;
    pthread_cond_broadcast(&done);
    free(o->args);
    free(o);
  }
  return NULL;
}

/* Appends o to device id's list (its worker started if need be); 0 or -1.
 * Once the program exits, o is dropped (0). */
static int post(int32_t id, __tgt_async_info *ai, struct op *o) {
  int drop = atomic_load(&abandoned);
  if (drop || link_remote(id) == NULL || ai == NULL) {
    free(o->args);
    free(o);
    return drop ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
  }
  pthread_mutex_lock(&lock);
  if (ai->queue == NULL && (ai->queue = calloc(1, sizeof(struct queue))) == NULL) {
    pthread_mutex_unlock(&lock);
    link_error("simdevice-mpi: no memory for a queue of device %d", id);
    free(o->args);
    free(o);
    return OFFLOAD_FAIL;
  }
  if (!started[id]) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started[id] = pthread_create(&t, &attr, worker, (void *)(intptr_t)id) == 0;
    pthread_attr_destroy(&attr);
    if (!started[id]) {
      pthread_mutex_unlock(&lock);
      link_error("simdevice-mpi: cannot start the queue thread of device %d",
                 id);
      free(o->args);
      free(o);
      return OFFLOAD_FAIL;
    }
  }
  o->q = ai->queue;
  o->q->pending++;
  if (tail[id] != NULL)
    tail[id]->next = o;
  else
    head[id] = o;
  tail[id] = o;
  pthread_cond_broadcast(&work);
  pthread_mutex_unlock(&lock);
  return OFFLOAD_SUCCESS;
}

static struct op *new_op(enum op_kind kind, void *tgt, void *hst,
                         int64_t size, uint64_t *times) {
  struct op *o = calloc(1, sizeof *o);
  if (o == NULL) {
    link_error("simdevice-mpi: no memory for an asynchronous operation");
    return NULL;
  }
  o->kind = kind;
  o->tgt = tgt;
  o->hst = hst;
  o->size = size;
  o->times = times;
  return o;
}

/* 1 when the queue has nothing posted that is not done, nor a failure. */
static int queue_idle(const __tgt_async_info *ai) {
  pthread_mutex_lock(&lock);
  const struct queue *q = ai->queue;
  int idle = q == NULL || (q->pending == 0 && !q->failed);
  pthread_mutex_unlock(&lock);
  return idle;
}

/* A copy of a queue with nothing before it runs in the call that posts it
 * when the device is free (a local device's copy is a memcpy done in its
 * post): the construct then ends in its dispatch, and libomp re-runs no
 * task to poll it (nowait_data_ended.c). Else it waits its turn on the
 * worker. Its failure fails this call, as a local device's does. */
static int32_t copy_async(int32_t id, void *tgt, void *hst, int64_t size,
                          int to_device, __tgt_async_info *ai) {
  uint64_t *times = host_take_timing(id);
  if (atomic_load(&abandoned))
    return OFFLOAD_SUCCESS; /* the program exits: dropped */
  if (ai != NULL && queue_idle(ai)) {
    int ran;
    int32_t rc = host_copy_if_free(id, tgt, hst, size, to_device, times,
                                   &ran);
    if (ran)
      return rc;
  }
  struct op *o = new_op(to_device ? OP_SUBMIT : OP_RETRIEVE, tgt, hst, size,
                        times);
  return o ? post(id, ai, o) : OFFLOAD_FAIL;
}

int32_t __tgt_rtl_data_submit_async(int32_t id, void *tgt, void *hst,
                                    int64_t size, __tgt_async_info *ai) {
  return copy_async(id, tgt, hst, size, 1, ai);
}

int32_t __tgt_rtl_data_retrieve_async(int32_t id, void *hst, void *tgt,
                                      int64_t size, __tgt_async_info *ai) {
  return copy_async(id, tgt, hst, size, 0, ai);
}

/* A queued launch with its KernelArgs version (0: older entry points), for
 * run_target_team_region_async and run_target_kernel. */
static int32_t run_async(int32_t id, void *entry, void **args,
                         ptrdiff_t *offsets, int32_t nargs, int32_t teams,
                         int32_t limit, uint32_t kargs_version,
                         __tgt_async_info *ai) {
  uint64_t *times = host_take_timing(id);
  if (nargs < 0 || nargs > 256 || (nargs > 0 && (!args || !offsets)))
    return host_run(id, entry, args, offsets, nargs, teams, limit,
                    kargs_version, NULL); /* its error */
  struct op *o = new_op(OP_RUN, entry, NULL, 0, times);
  if (o == NULL)
    return OFFLOAD_FAIL;
  o->args = calloc(nargs > 0 ? (size_t)nargs : 1, sizeof *o->args);
  if (o->args == NULL) {
    free(o);
    link_error("simdevice-mpi: no memory for a kernel's arguments");
    return OFFLOAD_FAIL;
  }
  for (int32_t i = 0; i < nargs; i++)
    o->args[i] = (char *)args[i] + offsets[i];
  o->nargs = nargs;
  o->teams = teams;
  o->limit = limit;
  o->kargs_version = kargs_version;
  return post(id, ai, o);
}

int32_t __tgt_rtl_run_target_team_region_async(
    int32_t id, void *entry, void **args, ptrdiff_t *offsets, int32_t nargs,
    int32_t teams, int32_t limit, uint64_t tripcount, __tgt_async_info *ai) {
  (void)tripcount;
  return run_async(id, entry, args, offsets, nargs, teams, limit, 0, ai);
}

/* KernelArgs version 4+ (clang 23): the rank's plugin calls the kernel as
 * the image and the version say; async_info NULL: synchronously. */
int32_t __tgt_rtl_run_target_kernel(int32_t id, void *entry, void **args,
                                    ptrdiff_t *offsets, int32_t nargs,
                                    int32_t teams, int32_t limit,
                                    uint64_t tripcount, uint32_t kargs_version,
                                    __tgt_async_info *ai) {
  (void)tripcount;
  if (ai != NULL)
    return run_async(id, entry, args, offsets, nargs, teams, limit,
                     kargs_version, ai);
  return host_run(id, entry, args, offsets, nargs, teams, limit,
                  kargs_version, host_take_timing(id));
}

int32_t __tgt_rtl_abandon_queues(void) {
  atomic_store(&abandoned, 1);
  return OFFLOAD_SUCCESS;
}

/* Under lock: releases a finished queue; its status. */
static int32_t release(__tgt_async_info *ai) {
  struct queue *q = ai->queue;
  int32_t rc = q->failed ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
  if (q->failed)
    link_error_set(&q->error);
  free(q);
  ai->queue = NULL;
  return rc;
}

int32_t __tgt_rtl_synchronize(int32_t id, __tgt_async_info *ai) {
  (void)id;
  if (ai == NULL || ai->queue == NULL)
    return OFFLOAD_SUCCESS;
  pthread_mutex_lock(&lock);
  struct queue *q = ai->queue;
  while (q->pending > 0)
    pthread_cond_wait(&done, &lock);
  int32_t rc = release(ai);
  pthread_mutex_unlock(&lock);
  return rc;
}

int32_t __tgt_rtl_query_async(int32_t id, __tgt_async_info *ai,
                              int32_t *is_completed) {
  (void)id;
  if (ai == NULL || ai->queue == NULL) {
    *is_completed = 1;
    return OFFLOAD_SUCCESS;
  }
  pthread_mutex_lock(&lock);
  int32_t rc = OFFLOAD_SUCCESS;
  struct queue *q = ai->queue;
  *is_completed = q->pending == 0;
  if (*is_completed)
    rc = release(ai);
  pthread_mutex_unlock(&lock);
  return rc;
}
