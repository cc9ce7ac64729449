/*
 * ompt_trace.c - OMPT device tracing: buffers of standard trace records
 * (see ompt_trace.h).
 */
#include "ompt_trace.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- omp-tools.h's record layout (104 bytes, as clang 19's header) ------ */

enum { CB_TARGET_DATA_OP = 9, CB_TARGET_SUBMIT = 10 };
enum { RECORD_OMPT = 1, RECORD_INVALID = 3 };   /* ompt_record_t */
enum { SET_ERROR = 0, SET_NEVER = 1, SET_ALWAYS = 5 }; /* ompt_set_result_t */

struct record_data_op {
  uint64_t host_op_id;
  int optype;
  void *src_addr;
  int src_device_num;
  void *dest_addr;
  int dest_device_num;
  size_t bytes;
  uint64_t end_time;
  const void *codeptr_ra;
};

struct record_kernel {
  uint64_t host_op_id;
  unsigned requested_num_teams, granted_num_teams;
  uint64_t end_time;
};

struct record {
  int type; /* ompt_callbacks_t */
  uint64_t time, thread_id, target_id;
  union {
    struct record_data_op data_op;
    struct record_kernel kernel;
  } u;
};
_Static_assert(sizeof(struct record_data_op) == 72, "ompt record layout");
_Static_assert(sizeof(struct record) == 104, "ompt_record_ompt_t layout");

typedef void (*request_fn)(int device_num, void **buffer, size_t *bytes);
typedef void (*complete_fn)(int device_num, void *buffer, size_t bytes,
                            size_t begin, int buffer_owned);

/* ---- per-device state ---------------------------------------------------- */

#define TRACE_MAX_DEVICES 256

struct trace_dev {
  int num; /* the handle the tool gets points here */
  bool started, paused;
  bool requesting; /* a thread is asking the tool for a buffer */
  bool types_all, data_op, kernel; /* ompt_set_trace_ompt */
  request_fn request;
  complete_fn complete;
  char *buf;
  size_t size, used;
};

static struct trace_dev devs[TRACE_MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t requested = PTHREAD_COND_INITIALIZER;
static bool any_started;

void *ompt_trace_device_handle(int device_num) {
  if (device_num < 0 || device_num >= TRACE_MAX_DEVICES)
    return NULL;
  devs[device_num].num = device_num;
  return &devs[device_num];
}

static struct trace_dev *dev_of(void *handle) {
  struct trace_dev *d = handle;
  if (d < devs || d >= devs + TRACE_MAX_DEVICES)
    return NULL;
  return d;
}

bool ompt_trace_on(int device_num, int code) {
  if (!__atomic_load_n(&any_started, __ATOMIC_ACQUIRE) || device_num < 0 ||
      device_num >= TRACE_MAX_DEVICES)
    return false;
  pthread_mutex_lock(&lock);
  struct trace_dev *d = &devs[device_num];
  bool on = d->started && !d->paused &&
            (d->types_all || (code == CB_TARGET_DATA_OP && d->data_op) ||
             (code == CB_TARGET_SUBMIT && d->kernel));
  pthread_mutex_unlock(&lock);
  return on;
}

uint64_t ompt_trace_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- buffers ------------------------------------------------------------- */

/* Hand the full part of d's buffer to the tool. Called with the lock held;
 * drops it around the tool's callback. */
static void complete_locked(struct trace_dev *d) {
  if (!d->buf)
    return;
  char *buf = d->buf;
  size_t used = d->used;
  complete_fn complete = d->complete;
  d->buf = NULL;
  d->size = d->used = 0;
  pthread_mutex_unlock(&lock);
  complete(d->num, buf, used, 0, 1);
  pthread_mutex_lock(&lock);
}

/* Room for one record in d's buffer, asking the tool for a new buffer when
 * needed (one thread asks at a time, the others wait for its answer); NULL
 * when tracing stopped or the tool gives no buffer large enough (the record
 * is lost; a buffer too small goes back to the tool empty). */
static struct record *room_locked(struct trace_dev *d) {
  for (;;) {
    if (d->buf && d->size - d->used >= sizeof(struct record))
      return (struct record *)(d->buf + d->used);
    if (!d->started)
      return NULL;
    if (!d->requesting)
      break;
    pthread_cond_wait(&requested, &lock);
  }
  d->requesting = true;
  complete_locked(d);
  void *buf = NULL;
  size_t size = 0;
  request_fn request = d->request;
  complete_fn complete = d->complete;
  pthread_mutex_unlock(&lock);
  request(d->num, &buf, &size);
  if (buf && size < sizeof(struct record))
    complete(d->num, buf, 0, 0, 1);
  pthread_mutex_lock(&lock);
  d->requesting = false;
  pthread_cond_broadcast(&requested);
  if (!buf || size < sizeof(struct record))
    return NULL;
  d->buf = buf;
  d->size = size;
  d->used = 0;
  return (struct record *)d->buf;
}

static void append(int device_num, const struct record *r) {
  pthread_mutex_lock(&lock);
  struct trace_dev *d = &devs[device_num];
  struct record *slot = d->started ? room_locked(d) : NULL;
  if (slot && d->started) {
    memcpy(slot, r, sizeof *r);
    d->used += sizeof *r;
  }
  pthread_mutex_unlock(&lock);
}

static uint64_t thread_id(void) { return (uint64_t)syscall(SYS_gettid); }

void ompt_trace_data_op(int device_num, const struct ompt_trace_op *op,
                        uint64_t t0, uint64_t t1) {
  struct record r = {.type = CB_TARGET_DATA_OP,
                     .time = t0,
                     .thread_id = thread_id(),
                     .target_id = op->target_id};
  r.u.data_op = (struct record_data_op){
      op->host_op_id, op->optype, op->src,   op->src_device,
      op->dst,        op->dst_device, op->bytes, t1, op->codeptr};
  append(device_num, &r);
}

void ompt_trace_kernel(int device_num, uint64_t target_id,
                       uint64_t host_op_id, unsigned teams, uint64_t t0,
                       uint64_t t1) {
  struct record r = {.type = CB_TARGET_SUBMIT,
                     .time = t0,
                     .thread_id = thread_id(),
                     .target_id = target_id};
  r.u.kernel = (struct record_kernel){host_op_id, teams, teams, t1};
  append(device_num, &r);
}

/* ---- the device entry points -------------------------------------------- */

static int set_trace_ompt(void *device, unsigned enable, unsigned etype) {
  struct trace_dev *d = dev_of(device);
  if (!d)
    return SET_ERROR;
  if (etype != 0 && etype != CB_TARGET_DATA_OP && etype != CB_TARGET_SUBMIT)
    return SET_NEVER;
  pthread_mutex_lock(&lock);
  if (etype == 0)
    d->types_all = enable != 0, d->data_op = d->kernel = enable != 0;
  else if (etype == CB_TARGET_DATA_OP)
    d->data_op = enable != 0;
  else
    d->kernel = enable != 0;
  pthread_mutex_unlock(&lock);
  return SET_ALWAYS;
}

static int start_trace(void *device, request_fn request,
                       complete_fn complete) {
  struct trace_dev *d = dev_of(device);
  if (!d || !request || !complete)
    return 0;
  pthread_mutex_lock(&lock);
  d->request = request;
  d->complete = complete;
  d->started = true;
  d->paused = false;
  __atomic_store_n(&any_started, true, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
  return 1;
}

static int pause_trace(void *device, int begin_pause) {
  struct trace_dev *d = dev_of(device);
  if (!d)
    return 0;
  pthread_mutex_lock(&lock);
  int ok = d->started;
  d->paused = begin_pause != 0;
  pthread_mutex_unlock(&lock);
  return ok;
}

static int flush_trace(void *device) {
  struct trace_dev *d = dev_of(device);
  if (!d)
    return 0;
  pthread_mutex_lock(&lock);
  int ok = d->started;
  if (ok)
    complete_locked(d);
  pthread_mutex_unlock(&lock);
  return ok;
}

static int stop_trace(void *device) {
  struct trace_dev *d = dev_of(device);
  if (!d || !flush_trace(device))
    return 0;
  pthread_mutex_lock(&lock);
  d->started = false;
  pthread_mutex_unlock(&lock);
  return 1;
}

void ompt_trace_device_finalize(int device_num) {
  if (device_num >= 0 && device_num < TRACE_MAX_DEVICES)
    stop_trace(&devs[device_num]);
}

static uint64_t get_device_time(void *device) {
  (void)device;
  return ompt_trace_now();
}

/* omp_get_wtime() seconds of a device time: the two clocks read together
 * once. */
static double wtime0;
static uint64_t mono0;

static void clocks_once(void) {
  double (*wtime)(void) = (double (*)(void))dlsym(RTLD_DEFAULT,
                                                   "omp_get_wtime");
  mono0 = ompt_trace_now();
  wtime0 = wtime ? wtime() : (double)mono0 / 1e9;
}

static double translate_time(void *device, uint64_t time) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  (void)device;
  pthread_once(&once, clocks_once);
  return wtime0 + ((double)time - (double)mono0) / 1e9;
}

static int get_device_num_procs(void *device) {
  (void)device;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static int advance_buffer_cursor(void *device, void *buffer, size_t size,
                                 size_t current, size_t *next) {
  (void)device, (void)buffer;
  if (current + 2 * sizeof(struct record) > size)
    return 0;
  *next = current + sizeof(struct record);
  return 1;
}

static int get_record_type(void *buffer, size_t current) {
  (void)current;
  return buffer ? RECORD_OMPT : RECORD_INVALID;
}

static void *get_record_ompt(void *buffer, size_t current) {
  return buffer ? (char *)buffer + current : NULL;
}

ompt_trace_entry ompt_trace_lookup(const char *name) {
  static const struct {
    const char *name;
    ompt_trace_entry fn;
  } entries[] = {
      {"ompt_set_trace_ompt", (ompt_trace_entry)set_trace_ompt},
      {"ompt_start_trace", (ompt_trace_entry)start_trace},
      {"ompt_pause_trace", (ompt_trace_entry)pause_trace},
      {"ompt_flush_trace", (ompt_trace_entry)flush_trace},
      {"ompt_stop_trace", (ompt_trace_entry)stop_trace},
      {"ompt_get_device_time", (ompt_trace_entry)get_device_time},
      {"ompt_translate_time", (ompt_trace_entry)translate_time},
      {"ompt_get_device_num_procs", (ompt_trace_entry)get_device_num_procs},
      {"ompt_advance_buffer_cursor", (ompt_trace_entry)advance_buffer_cursor},
      {"ompt_get_record_type", (ompt_trace_entry)get_record_type},
      {"ompt_get_record_ompt", (ompt_trace_entry)get_record_ompt},
  };
  for (size_t i = 0; name && i < sizeof entries / sizeof entries[0]; i++)
    if (!strcmp(name, entries[i].name))
      return entries[i].fn;
  return NULL;
}
