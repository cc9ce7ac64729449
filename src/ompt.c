/*
 * ompt.c - OMPT for offload: the handshake with the host libomp and the
 * target callbacks (see ompt.h for the protocol and what is raised).
 */
#include "ompt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "ompt_trace.h"
#include "report.h"
#include "settings.h"

/* ---- the omp-tools.h types this file uses ------------------------------*/

typedef union {
  uint64_t value;
  void *ptr;
} ompt_data;
typedef void (*ompt_cb)(void);
typedef ompt_cb (*ompt_lookup)(const char *name);
typedef int (*ompt_init_fn)(ompt_lookup lookup, int initial_device,
                            ompt_data *tool_data);
typedef void (*ompt_fini_fn)(ompt_data *tool_data);
struct ompt_start_result {
  ompt_init_fn initialize;
  ompt_fini_fn finalize;
  ompt_data tool_data;
};
typedef int (*get_callback_fn)(int which, ompt_cb *callback);
typedef ompt_data *(*get_data_fn)(void);

enum { BEGIN = 1, END = 2 }; /* ompt_scope_endpoint_t */

/* ompt_callbacks_t codes of the callbacks simtarget raises */
enum {
  CB_TARGET = 8,
  CB_DATA_OP = 9,
  CB_SUBMIT = 10,
  CB_DEVICE_INIT = 12,
  CB_DEVICE_FINI = 13,
  CB_DEVICE_LOAD = 14,
  CB_DEVICE_UNLOAD = 15,
  CB_TARGET_EMI = 33,
  CB_DATA_OP_EMI = 34,
  CB_SUBMIT_EMI = 35,
};

typedef void (*target_fn)(int kind, int endpoint, int device_num,
                          ompt_data *task_data, uint64_t target_id,
                          const void *codeptr_ra);
typedef void (*target_emi_fn)(int kind, int endpoint, int device_num,
                              ompt_data *task_data,
                              ompt_data *target_task_data,
                              ompt_data *target_data, const void *codeptr_ra);
typedef void (*data_op_fn)(uint64_t target_id, uint64_t host_op_id,
                           int optype, void *src, int src_device, void *dst,
                           int dst_device, size_t bytes,
                           const void *codeptr_ra);
typedef void (*data_op_emi_fn)(int endpoint, ompt_data *target_task_data,
                               ompt_data *target_data, uint64_t *host_op_id,
                               int optype, void *src, int src_device,
                               void *dst, int dst_device, size_t bytes,
                               const void *codeptr_ra);
typedef void (*submit_fn)(uint64_t target_id, uint64_t host_op_id,
                          unsigned requested_teams);
typedef void (*submit_emi_fn)(int endpoint, ompt_data *target_data,
                              uint64_t *host_op_id, unsigned requested_teams);
typedef void (*device_init_fn)(int device_num, const char *type,
                               void *device, ompt_lookup lookup,
                               const char *documentation);
typedef void (*device_fini_fn)(int device_num);
typedef void (*device_load_fn)(int device_num, const char *filename,
                               int64_t offset_in_file, void *vma_in_file,
                               size_t bytes, void *host_addr,
                               void *device_addr, uint64_t module_id);
typedef void (*device_unload_fn)(int device_num, uint64_t module_id);

/* ---- state -------------------------------------------------------------*/

bool ompt_active;

static struct {
  target_fn target;
  target_emi_fn target_emi;
  data_op_fn data_op;
  data_op_emi_fn data_op_emi;
  submit_fn submit;
  submit_emi_fn submit_emi;
  device_init_fn device_init;
  device_fini_fn device_fini;
  device_load_fn device_load;
  device_unload_fn device_unload;
  get_data_fn task_data;
  get_data_fn target_task_data;
} cb;

static bool finalized;
static uint64_t next_id = 1;

/* The current construct of this thread. */
static __thread struct {
  bool in_construct;
  int kind, device;
  ompt_data target_data;
  uint64_t target_id; /* ours, for non-EMI callbacks and trace records */
  const void *codeptr;
} cur;

static uint64_t new_id(void) {
  return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

static bool on(const void *callback) {
  return callback && !__atomic_load_n(&finalized, __ATOMIC_ACQUIRE);
}

/* ---- the handshake -------------------------------------------------------*/

static ompt_cb get_callback(get_callback_fn get, int which) {
  ompt_cb f = NULL;
  if (get(which, &f) <= 0)
    return NULL;
  return f;
}

static int on_initialize(ompt_lookup lookup, int initial_device,
                         ompt_data *tool_data) {
  (void)initial_device, (void)tool_data;
  get_callback_fn get = (get_callback_fn)lookup("ompt_get_callback");
  if (!get)
    return 0;
  cb.target = (target_fn)get_callback(get, CB_TARGET);
  cb.target_emi = (target_emi_fn)get_callback(get, CB_TARGET_EMI);
  cb.data_op = (data_op_fn)get_callback(get, CB_DATA_OP);
  cb.data_op_emi = (data_op_emi_fn)get_callback(get, CB_DATA_OP_EMI);
  cb.submit = (submit_fn)get_callback(get, CB_SUBMIT);
  cb.submit_emi = (submit_emi_fn)get_callback(get, CB_SUBMIT_EMI);
  cb.device_init = (device_init_fn)get_callback(get, CB_DEVICE_INIT);
  cb.device_fini = (device_fini_fn)get_callback(get, CB_DEVICE_FINI);
  cb.device_load = (device_load_fn)get_callback(get, CB_DEVICE_LOAD);
  cb.device_unload = (device_unload_fn)get_callback(get, CB_DEVICE_UNLOAD);
  cb.task_data = (get_data_fn)lookup("ompt_get_task_data");
  cb.target_task_data = (get_data_fn)lookup("ompt_get_target_task_data");
  ompt_active = true;
  report_debug("OMPT: a tool is attached through libomp");
  return 1;
}

/* Devices that had device_initialize and not yet device_finalize, and
 * the number of their loaded modules. */
#define OMPT_MAX_DEVICES 256
static bool initialised[OMPT_MAX_DEVICES];
static int modules[OMPT_MAX_DEVICES];

/* libomp finalizes the tool (at its own exit, before our destructor):
 * devices still initialised are finalized first, as the specification
 * wants every device_initialize matched; then nothing more is raised. */
static void on_finalize(ompt_data *tool_data) {
  (void)tool_data;
  for (int d = 0; d < OMPT_MAX_DEVICES; d++)
    if (__atomic_exchange_n(&initialised[d], false, __ATOMIC_ACQ_REL) &&
        cb.device_fini) {
      ompt_trace_device_finalize(d);
      cb.device_fini(d);
    }
  __atomic_store_n(&finalized, true, __ATOMIC_RELEASE);
}

static struct ompt_start_result connector = {on_initialize, on_finalize,
                                             {0}};

/* Whether libomp may have found a tool: OMP_TOOL_LIBRARIES names one, or
 * an ompt_start_tool other than libomp's own is visible (the program's or a
 * preloaded library's). Otherwise the handshake is skipped: it initialises
 * libomp, which a program without a tool must not see happen earlier. */
static bool tool_possible(void *connect) {
  const struct settings *s = settings_get();
  if (s->omp_tool_disabled)
    return false;
  if (s->omp_tool_named)
    return true;
  void *start = dlsym(RTLD_DEFAULT, "ompt_start_tool");
  Dl_info in_start, in_libomp;
  return start && dladdr(start, &in_start) && dladdr(connect, &in_libomp) &&
         in_start.dli_fbase != in_libomp.dli_fbase;
}

static void connect_once(void) {
  void (*connect)(struct ompt_start_result *) =
      (void (*)(struct ompt_start_result *))dlsym(RTLD_DEFAULT,
                                                  "ompt_libomp_connect");
  if (connect && tool_possible((void *)connect))
    connect(&connector);
}

void ompt_connect(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, connect_once);
}

/* ---- target constructs ---------------------------------------------------*/

/* omp_get_initial_device() of the host libomp, for the host's side of an
 * operation: asked once, at an entry point (no lock of ours held there),
 * as it asks us for the device count. */
static int host_num = -1;

static void lookup_host_num(void) {
  int (*initial)(void) =
      (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_initial_device");
  __atomic_store_n(&host_num, initial ? initial() : -1, __ATOMIC_RELEASE);
}

static int host_device(void) {
  return __atomic_load_n(&host_num, __ATOMIC_ACQUIRE);
}

void ompt_set_codeptr(const void *codeptr) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  cur.codeptr = codeptr;
  if (ompt_active)
    pthread_once(&once, lookup_host_num);
}

static ompt_data *task_data(void) {
  return cb.task_data ? cb.task_data() : NULL;
}

static ompt_data *target_task_data(void) {
  return cb.target_task_data ? cb.target_task_data() : NULL;
}

void ompt_target_begin(int kind, int device_num) {
  cur.in_construct = true;
  cur.kind = kind;
  cur.device = device_num;
  cur.target_data.value = 0;
  cur.target_id = new_id();
  if (on(cb.target_emi))
    cb.target_emi(kind, BEGIN, device_num, task_data(), target_task_data(),
                  &cur.target_data, cur.codeptr);
  else if (on(cb.target))
    cb.target(kind, BEGIN, device_num, task_data(), cur.target_id,
              cur.codeptr);
}

void ompt_target_end(void) {
  if (on(cb.target_emi))
    cb.target_emi(cur.kind, END, cur.device, task_data(), target_task_data(),
                  &cur.target_data, cur.codeptr);
  else if (on(cb.target))
    cb.target(cur.kind, END, cur.device, task_data(), cur.target_id,
              cur.codeptr);
  cur.in_construct = false;
}

static int device_or_host(int device) {
  return device == OMPT_NO_DEVICE ? -1 : device < 0 ? host_device() : device;
}

/* A data operation or kernel outside any construct (the memory routines)
 * has target data of its own, never a finished construct's. */
static ompt_data *op_target_data(ompt_data *scratch) {
  if (cur.in_construct)
    return &cur.target_data;
  scratch->value = 0;
  return scratch;
}

static void raise_op(struct ompt_op *op, int endpoint) {
  ompt_data scratch;
  int src = device_or_host(op->src_device);
  int dst = device_or_host(op->dst_device);
  if (on(cb.data_op_emi)) {
    if (endpoint == BEGIN)
      op->host_op_id = 0;
    cb.data_op_emi(endpoint, target_task_data(), op_target_data(&scratch),
                   &op->host_op_id, op->optype, op->src, src, op->dst, dst,
                   op->bytes, cur.codeptr);
  } else if (endpoint == BEGIN && on(cb.data_op)) {
    op->host_op_id = new_id();
    cb.data_op(cur.in_construct ? cur.target_id : 0,
               op->host_op_id, op->optype, op->src, src, op->dst, dst,
               op->bytes, cur.codeptr);
  }
}

/* The device an operation is traced on: its side that is not the host. */
static int op_device(const struct ompt_op *op) {
  return op->src_device >= 0 ? op->src_device : op->dst_device;
}

void ompt_raise_op_begin(struct ompt_op *op) {
  raise_op(op, BEGIN);
  if (ompt_trace_on(op_device(op), CB_DATA_OP)) {
    if (!op->host_op_id)
      op->host_op_id = new_id();
    op->target_id = cur.in_construct ? cur.target_id : 0;
    op->codeptr = cur.codeptr;
    op->times[0] = op->times[1] = 0;
    op->t0 = ompt_trace_now();
  }
}

void ompt_op_record(const struct ompt_op *op) {
  if (!op->t0 || !ompt_trace_on(op_device(op), CB_DATA_OP))
    return;
  struct ompt_trace_op r = {op->target_id,
                            op->host_op_id,
                            op->optype,
                            op->src,
                            device_or_host(op->src_device),
                            op->dst,
                            device_or_host(op->dst_device),
                            op->bytes,
                            op->codeptr};
  bool timed = op->times[1] != 0 && op->times[1] >= op->times[0];
  ompt_trace_data_op(op_device(op), &r, timed ? op->times[0] : op->t0,
                     timed ? op->times[1] : ompt_trace_now());
}

void ompt_raise_op_end(struct ompt_op *op) {
  if (!op->deferred)
    ompt_op_record(op);
  raise_op(op, END);
}

void ompt_raise_submit_begin(struct ompt_kernel *k) {
  ompt_data scratch;
  k->host_op_id = 0;
  k->traced = false;
  if (on(cb.submit_emi))
    cb.submit_emi(BEGIN, op_target_data(&scratch), &k->host_op_id,
                  k->teams);
  else if (on(cb.submit)) {
    k->host_op_id = new_id();
    cb.submit(cur.in_construct ? cur.target_id : 0, k->host_op_id,
              k->teams);
  }
  if (ompt_trace_on(cur.device, CB_SUBMIT)) {
    if (!k->host_op_id)
      k->host_op_id = new_id();
    k->traced = true;
    k->device = cur.device;
    k->target_id = cur.target_id;
    k->times[0] = k->times[1] = 0;
    k->t0 = ompt_trace_now();
  }
}

void ompt_kernel_record(const struct ompt_kernel *k) {
  if (!k->traced || !ompt_trace_on(k->device, CB_SUBMIT))
    return;
  bool timed = k->times[1] != 0 && k->times[1] >= k->times[0];
  ompt_trace_kernel(k->device, k->target_id, k->host_op_id, k->teams,
                    timed ? k->times[0] : k->t0,
                    timed ? k->times[1] : ompt_trace_now());
}

void ompt_raise_submit_end(struct ompt_kernel *k) {
  if (!k->deferred)
    ompt_kernel_record(k);
  ompt_data scratch;
  if (on(cb.submit_emi))
    cb.submit_emi(END, op_target_data(&scratch), &k->host_op_id, k->teams);
}

/* ---- devices -------------------------------------------------------------*/

void ompt_device_initialize(int device_num, const char *type) {
  if (device_num >= 0 && device_num < OMPT_MAX_DEVICES)
    __atomic_store_n(&initialised[device_num], true, __ATOMIC_RELEASE);
  if (on(cb.device_init))
    cb.device_init(device_num, type, ompt_trace_device_handle(device_num),
                   (ompt_lookup)ompt_trace_lookup, NULL);
}

void ompt_device_finalize(int device_num) {
  if (device_num >= 0 && device_num < OMPT_MAX_DEVICES &&
      !__atomic_exchange_n(&initialised[device_num], false, __ATOMIC_ACQ_REL))
    return;
  ompt_trace_device_finalize(device_num);
  if (on(cb.device_fini))
    cb.device_fini(device_num);
}

uint64_t ompt_device_load(int device_num, const void *host_addr,
                          size_t bytes) {
  uint64_t module_id = new_id();
  if (device_num >= 0 && device_num < OMPT_MAX_DEVICES)
    __atomic_add_fetch(&modules[device_num], 1, __ATOMIC_ACQ_REL);
  if (on(cb.device_load))
    cb.device_load(device_num, NULL, -1, NULL, bytes, (void *)host_addr,
                   NULL, module_id);
  return module_id;
}

/* The device is finalized with its last module: the program unregisters
 * its libraries in its own destructors, before libomp finalizes the tool
 * (and then its connected runtimes: too late for a tool's last events). */
void ompt_device_unload(int device_num, uint64_t module_id) {
  if (on(cb.device_unload))
    cb.device_unload(device_num, module_id);
  if (device_num >= 0 && device_num < OMPT_MAX_DEVICES &&
      __atomic_sub_fetch(&modules[device_num], 1, __ATOMIC_ACQ_REL) == 0)
    ompt_device_finalize(device_num);
}
