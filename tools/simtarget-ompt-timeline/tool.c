/*
 * tool.c - simtarget-ompt-timeline: an OMPT tool that draws offload as the
 * LIBOMPTARGET_PROFILE timeline (README "OMPT"). Load it into any OpenMP
 * program with OMP_TOOL_LIBRARIES=.../libsimtarget-ompt-timeline.so; it
 * writes the file SIMTARGET_OMPT_TIMELINE names (default
 * ompt-timeline.json), which tools/simtarget-timeline draws.
 *
 * Only standard OMPT is used (the EMI target callbacks), so the tool works
 * on any offload runtime that raises them (simtarget, LLVM 19's own).
 * From each event:
 *   target_emi        a "construct" event on the host thread's track, named
 *                     as the profile names them, placed at the construct's
 *                     codeptr_ra (program+offset: `addr2line -e` finds the
 *                     line); a nowait construct also holds a nowait lane of
 *                     its device, drawn as a "nowait" event there;
 *   target_data_op_emi an "alloc"/"free" event on the device's memory track,
 *                     a "copy" event (direction, bytes) on its copies track
 *                     or the construct's lane; associate and disassociate
 *                     as instants on the memory track;
 *   target_submit_emi  a "kernel" event on the kernels track or the lane.
 * What OMPT does not give, the events lack: variable names of copies (the
 * host address is given instead), kernel names, a construct's status.
 * With SIMTARGET_OMPT_TIMELINE_TRACE=1 copies, allocations, frees and
 * kernels take the times of their device-tracing records (trace.c).
 *
 * Thread safety: a construct's state lives in its target_data (the tool's,
 * handed back by each event); an operation's start time is thread-local
 * (a thread's data operations do not nest); the file has its lock.
 */
#include "events.h"
#include "ompt_decls.h"
#include "trace.h"
#include "writer.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct construct {
  int kind;
  int device;
  int lane;
  uint64_t t0;
  char where[160]; /* program+0xOFFSET of codeptr_ra (raw text) */
  char func[160];  /* its function, when the program exports it */
  char where_json[320], func_json[320]; /* both escaped for JSON */
};

static int host_device; /* omp_get_initial_device() */
static __thread uint64_t op_t0, submit_t0;

/* "program+0x1234" and the function of construct c's code address. */
static void locate(const void *ra, struct construct *c) {
  Dl_info info;
  if (ra && dladdr(ra, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(c->where, sizeof c->where, "%s+0x%lx",
             base ? base + 1 : info.dli_fname,
             (unsigned long)((const char *)ra - (const char *)info.dli_fbase));
    snprintf(c->func, sizeof c->func, "%s",
             info.dli_sname ? info.dli_sname : "");
  }
  tl_json_string(c->where_json, sizeof c->where_json, c->where);
  tl_json_string(c->func_json, sizeof c->func_json, c->func);
}

static const char *construct_title(int kind) {
  switch (kind & ~OMPT_TARGET_NOWAIT_BIT) {
  case OMPT_TARGET: return "target";
  case OMPT_TARGET_ENTER_DATA: return "data enter";
  case OMPT_TARGET_EXIT_DATA: return "data exit";
  case OMPT_TARGET_UPDATE: return "target update";
  default: return "?";
  }
}

static void construct_begin(int kind, int device, ompt_data_t *target,
                            const void *ra) {
  struct construct *c = calloc(1, sizeof *c);
  target->ptr = c;
  if (!c) {
    fprintf(stderr, "simtarget-ompt-timeline: out of memory: a construct "
                    "on device %d is left out of the timeline\n", device);
    return;
  }
  c->kind = kind;
  c->device = device;
  c->lane = kind & OMPT_TARGET_NOWAIT_BIT ? tl_lane_take(device) : -1;
  locate(ra, c);
  c->t0 = tl_now();
}

static void construct_end(ompt_data_t *target) {
  struct construct *c = target->ptr;
  if (!c)
    return;
  uint64_t t1 = tl_now();
  bool nowait = c->kind & OMPT_TARGET_NOWAIT_BIT;
  char name[400], args[900];
  snprintf(name, sizeof name, "%s%s%s%s", construct_title(c->kind),
           nowait ? " nowait" : "", c->where[0] ? " @ " : "", c->where);
  snprintf(args, sizeof args,
           "\"construct\":\"%s\",\"loc\":\"%s\",\"func\":\"%s\","
           "\"device\":%d,\"nowait\":%s,\"source\":\"ompt\"",
           construct_title(c->kind), c->where_json, c->func_json, c->device,
           nowait ? "true" : "false");
  tl_complete(TL_HOST_PID, tl_tid(), name, "construct", c->t0, t1, args);
  if (c->lane >= 0 && c->device >= 0 && c->device < TL_MAX_DEVICES) {
    snprintf(args, sizeof args, "\"loc\":\"%s\",\"status\":\"done\"",
             c->where_json);
    tl_complete(TL_DEVICE_PID(c->device), TL_LANE_TID(c->lane), name,
                "nowait", c->t0, t1, args);
    tl_lane_give(c->device, c->lane);
  }
  free(c);
  target->ptr = NULL;
}

static void on_target_emi(int kind, int endpoint, int device,
                          ompt_data_t *task, ompt_data_t *target_task,
                          ompt_data_t *target, const void *ra) {
  (void)task, (void)target_task;
  if (!target)
    return;
  if (endpoint == OMPT_BEGIN)
    construct_begin(kind, device, target, ra);
  else if (endpoint == OMPT_END)
    construct_end(target);
}

/* The track of a copy or kernel: its construct's lane, or `track`. */
static long track_of(const ompt_data_t *target, int device, long track) {
  const struct construct *c = target ? target->ptr : NULL;
  if (c && c->lane >= 0 && c->device == device)
    return TL_LANE_TID(c->lane);
  return track;
}

static uint64_t next_op_id = 1;

/* The device of a data operation: its side that is not the host. */
static int op_device(int src_device, int dst_device) {
  bool src_is_device = src_device >= 0 && src_device != host_device;
  return src_is_device ? src_device : dst_device;
}

static void associate_event(int op, int device, void *host_ptr,
                            void *dev_ptr, size_t bytes) {
  char args[200];
  const char *what = op == OMPT_OP_ASSOCIATE ? "associate" : "disassociate";
  snprintf(args, sizeof args,
           "\"host_ptr\":\"%p\",\"device_ptr\":\"%p\",\"bytes\":%zu",
           host_ptr, dev_ptr, bytes);
  tl_instant(TL_DEVICE_PID(device), TL_MEMORY, what, what, tl_now(), args);
}

static void on_data_op_emi(int endpoint, ompt_data_t *target_task,
                           ompt_data_t *target, ompt_id_t *host_op_id,
                           int optype, void *src, int src_device, void *dst,
                           int dst_device, size_t bytes, const void *ra) {
  (void)target_task, (void)ra;
  int op = optype & ~OMPT_OP_ASYNC;
  int device = op_device(src_device, dst_device);
  if (device < 0 || device >= TL_MAX_DEVICES)
    return; /* the host's own operations: no device track */
  bool drawn = op >= OMPT_OP_ALLOC && op <= OMPT_OP_DELETE;
  bool copy = op == OMPT_OP_TO_DEVICE || op == OMPT_OP_FROM_DEVICE;
  long track = copy ? track_of(target, device, TL_COPIES) : TL_MEMORY;
  bool queued = copy && track != TL_COPIES;
  if (endpoint == OMPT_BEGIN) {
    *host_op_id = __atomic_fetch_add(&next_op_id, 1, __ATOMIC_RELAXED);
    if (drawn && trace_on(device))
      trace_expect(*host_op_id, device, track, queued, NULL, NULL);
    op_t0 = tl_now();
    return;
  }
  uint64_t t1 = tl_now();
  if (drawn && trace_on(device))
    return; /* drawn from its trace record */
  if (op == OMPT_OP_ALLOC || op == OMPT_OP_DELETE)
    ev_memory(op == OMPT_OP_ALLOC, device, op == OMPT_OP_ALLOC ? dst : src,
              op == OMPT_OP_ALLOC ? bytes : 0, op_t0, t1, tl_tid());
  else if (copy)
    ev_copy(op == OMPT_OP_TO_DEVICE, device, track, queued,
            op == OMPT_OP_TO_DEVICE ? src : dst, bytes, op_t0, t1, tl_tid());
  else if (op == OMPT_OP_ASSOCIATE || op == OMPT_OP_DISASSOCIATE)
    associate_event(op, device, src, dst, bytes);
}

/* The name and args of a kernel of construct c on `track`. */
static void kernel_text(const struct construct *c, long track,
                        unsigned requested_teams, char *name, size_t len,
                        char *args, size_t args_len) {
  bool queued = track != TL_KERNELS;
  snprintf(name, len, "%skernel of target @ %s", queued ? "queue " : "",
           c->where[0] ? c->where : "?");
  snprintf(args, args_len,
           "\"kernel\":\"\",\"loc\":\"%s\",\"func\":\"%s\","
           "\"requested_teams\":%u,\"queued\":%s,\"host_tid\":%ld",
           c->where_json, c->func_json, requested_teams,
           queued ? "true" : "false", tl_tid());
}

static void on_submit_emi(int endpoint, ompt_data_t *target,
                          ompt_id_t *host_op_id, unsigned requested_teams) {
  const struct construct *c = target ? target->ptr : NULL;
  if (!c || c->device < 0 || c->device >= TL_MAX_DEVICES)
    return; /* a kernel outside a construct the tool saw: no device */
  long track = track_of(target, c->device, TL_KERNELS);
  char name[300], args[900];
  if (endpoint == OMPT_BEGIN) {
    *host_op_id = __atomic_fetch_add(&next_op_id, 1, __ATOMIC_RELAXED);
    if (trace_on(c->device)) {
      kernel_text(c, track, requested_teams, name, sizeof name, args,
                  sizeof args);
      trace_expect(*host_op_id, c->device, track, track != TL_KERNELS, name,
                   args);
    }
    submit_t0 = tl_now();
    return;
  }
  if (trace_on(c->device))
    return; /* drawn from its trace record */
  kernel_text(c, track, requested_teams, name, sizeof name, args,
              sizeof args);
  tl_complete(TL_DEVICE_PID(c->device), track, name, "kernel", submit_t0,
              tl_now(), args);
}

/* libomp (19 and later) connects an offload runtime only for a tool that
 * registered device_initialize. */
static void on_device_initialize(int device, const char *type,
                                 ompt_device_t *dev,
                                 ompt_function_lookup_t lookup,
                                 const char *doc) {
  (void)type, (void)doc;
  const char *trace = getenv("SIMTARGET_OMPT_TIMELINE_TRACE");
  if (trace && *trace && strcmp(trace, "0") && lookup)
    trace_start(device, dev, lookup);
}

static int initialize(ompt_function_lookup_t lookup, int initial_device,
                      ompt_data_t *tool_data) {
  (void)tool_data;
  host_device = initial_device;
  const char *path = getenv("SIMTARGET_OMPT_TIMELINE");
  if (!tl_open(path && *path ? path : "ompt-timeline.json"))
    return 0;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set)
    return 0;
  set(OMPT_CB_DEVICE_INITIALIZE, (ompt_callback_t)on_device_initialize);
  set(OMPT_CB_TARGET_EMI, (ompt_callback_t)on_target_emi);
  set(OMPT_CB_TARGET_DATA_OP_EMI, (ompt_callback_t)on_data_op_emi);
  set(OMPT_CB_TARGET_SUBMIT_EMI, (ompt_callback_t)on_submit_emi);
  return 1;
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version);
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
