/*
 * trace.c - device tracing for the timeline (trace.h).
 *
 * Locking: `lock` guards the table of expected records (`expected`,
 * `num_expected`, `cap_expected`). `traced` (bit d: device d) is written
 * before the device's first operation and read without the lock.
 */
#include "trace.h"
#include "events.h"
#include "writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct expected {
  uint64_t host_op_id;
  int device;
  long track;
  bool queued;
  char *kernel_name, *kernel_args; /* NULL for a data operation */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct expected *expected;
static size_t num_expected, cap_expected;
static _Atomic uint64_t traced;
static ompt_get_record_ompt_t get_record;
static ompt_advance_buffer_cursor_t advance;

#define RECORDS_PER_BUFFER 256

bool trace_on(int device_num) {
  return device_num >= 0 && device_num < TL_MAX_DEVICES &&
         (traced >> device_num & 1);
}

bool trace_expect(uint64_t host_op_id, int device, long track, bool queued,
                  const char *kernel_name, const char *kernel_args) {
  pthread_mutex_lock(&lock);
  if (num_expected == cap_expected) {
    size_t cap = cap_expected ? 2 * cap_expected : 64;
    struct expected *e = realloc(expected, cap * sizeof *e);
    if (!e) {
      pthread_mutex_unlock(&lock);
      fprintf(stderr, "simtarget-ompt-timeline: out of memory: operation "
                      "%llu on device %d is left out of the timeline\n",
              (unsigned long long)host_op_id, device);
      return false;
    }
    expected = e, cap_expected = cap;
  }
  expected[num_expected++] = (struct expected){
      host_op_id, device, track, queued,
      kernel_name ? strdup(kernel_name) : NULL,
      kernel_args ? strdup(kernel_args) : NULL};
  pthread_mutex_unlock(&lock);
  return true;
}

/* Takes the expected entry of `host_op_id` out of the table. */
static bool take(uint64_t host_op_id, struct expected *out) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < num_expected; i++)
    if (expected[i].host_op_id == host_op_id) {
      *out = expected[i];
      expected[i] = expected[--num_expected];
      pthread_mutex_unlock(&lock);
      return true;
    }
  pthread_mutex_unlock(&lock);
  return false;
}

/* One record as its event. Records of operations the tool draws no event
 * for (the host's own, associate) are not expected: skipped. */
static void draw(const ompt_record_ompt_t *r) {
  struct expected e;
  if (r->type == OMPT_CB_TARGET_SUBMIT) {
    if (!take(r->record.target_kernel.host_op_id, &e))
      return;
    if (e.kernel_name && e.kernel_args)
      tl_complete(TL_DEVICE_PID(e.device), e.track, e.kernel_name, "kernel",
                  r->time, r->record.target_kernel.end_time, e.kernel_args);
    free(e.kernel_name), free(e.kernel_args);
    return;
  }
  if (r->type != OMPT_CB_TARGET_DATA_OP ||
      !take(r->record.target_data_op.host_op_id, &e))
    return;
  const typeof(r->record.target_data_op) *d = &r->record.target_data_op;
  long tid = (long)r->thread_id;
  switch (d->optype & ~OMPT_OP_ASYNC) {
  case OMPT_OP_ALLOC:
    ev_memory(true, e.device, d->dest_addr, d->bytes, r->time, d->end_time,
              tid);
    break;
  case OMPT_OP_DELETE:
    ev_memory(false, e.device, d->src_addr, 0, r->time, d->end_time, tid);
    break;
  case OMPT_OP_TO_DEVICE:
  case OMPT_OP_FROM_DEVICE: {
    bool to = (d->optype & ~OMPT_OP_ASYNC) == OMPT_OP_TO_DEVICE;
    ev_copy(to, e.device, e.track, e.queued, to ? d->src_addr : d->dest_addr,
            d->bytes, r->time, d->end_time, tid);
    break;
  }
  default: break;
  }
}

static void buffer_request(int device_num, ompt_buffer_t **buffer,
                           size_t *bytes) {
  (void)device_num;
  *bytes = RECORDS_PER_BUFFER * sizeof(ompt_record_ompt_t);
  *buffer = malloc(*bytes);
  if (!*buffer)
    *bytes = 0; /* the runtime stops tracing the device */
}

static void buffer_complete(int device_num, ompt_buffer_t *buffer,
                            size_t bytes, ompt_buffer_cursor_t begin,
                            int owned) {
  (void)device_num;
  ompt_buffer_cursor_t cur = begin;
  while (bytes > 0) {
    const ompt_record_ompt_t *r = get_record(buffer, cur);
    if (r)
      draw(r);
    if (!advance(NULL, buffer, bytes, cur, &cur))
      break;
  }
  if (owned)
    free(buffer);
}

bool trace_start(int device_num, ompt_device_t *device,
                 ompt_function_lookup_t lookup) {
  ompt_set_trace_ompt_t set =
      (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
  ompt_start_trace_t start = (ompt_start_trace_t)lookup("ompt_start_trace");
  get_record = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
  advance = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
  if (device_num < 0 || device_num >= TL_MAX_DEVICES || !set || !start ||
      !get_record || !advance ||
      set(device, 1, OMPT_CB_TARGET_DATA_OP) == OMPT_SET_NEVER ||
      set(device, 1, OMPT_CB_TARGET_SUBMIT) == OMPT_SET_NEVER ||
      !start(device, buffer_request, buffer_complete)) {
    fprintf(stderr, "simtarget-ompt-timeline: device %d offers no tracing "
                    "of data operations and kernels "
                    "(SIMTARGET_OMPT_TIMELINE_TRACE): its events are timed "
                    "by the callbacks\n", device_num);
    return false;
  }
  traced |= (uint64_t)1 << device_num;
  return true;
}
