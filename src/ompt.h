/*
 * ompt.h - OMPT for offload (OpenMP 5.1 section 4, seed 002 "Tool
 * Callbacks"): the target callbacks a tool registered with the host libomp,
 * raised by simtarget.
 *
 * The handshake is LLVM's: libomp (19 and later; Debian's libomp 14 lacks it)
 * exports ompt_libomp_connect(ompt_start_tool_result_t *). simtarget calls
 * it once, when the first library registers; libomp first initialises
 * itself and its tool, then, when the tool registered
 * ompt_callback_device_initialize, calls our initialize with its lookup
 * function, through which simtarget reads (ompt_get_callback) the target
 * callbacks the tool registered. libomp calls our finalize when the tool is
 * finalized; no event is raised after that.
 *
 * The types are those of omp-tools.h, declared here with the values the
 * specification gives them (the runtime is built without clang's headers;
 * tests/ompt/ compiles its tool with the real omp-tools.h).
 *
 * Layer: bottom of src/ (it calls only dlsym and report.c). Every raise
 * function costs one load and a branch when no tool is attached.
 *
 * Thread safety: the callback table is written once, by the connecting
 * thread, before any construct runs (registration), and only read after;
 * the current construct (its target data and id, codeptr_ra, device) is
 * thread-local; ids come from one atomic counter.
 */
#ifndef SIMTARGET_OMPT_H
#define SIMTARGET_OMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ompt_target_t */
enum {
  OMPT_TARGET = 1,
  OMPT_TARGET_ENTER_DATA = 2,
  OMPT_TARGET_EXIT_DATA = 3,
  OMPT_TARGET_UPDATE = 4,
  OMPT_TARGET_NOWAIT_BIT = 8, /* ompt_target_nowait = 9, ... */
};

/* ompt_target_data_op_t */
enum {
  OMPT_OP_ALLOC = 1,
  OMPT_OP_TO_DEVICE = 2,
  OMPT_OP_FROM_DEVICE = 3,
  OMPT_OP_DELETE = 4,
  OMPT_OP_ASSOCIATE = 5,
  OMPT_OP_DISASSOCIATE = 6,
};

/* Set by ompt_connect() when a tool wants target events. */
extern bool ompt_active;

/* The handshake with the host libomp; once, at the first registration. */
void ompt_connect(void);

/* The return address of the entry point the program called (codeptr_ra),
 * for the events of this thread's next construct or memory routine. */
void ompt_set_codeptr(const void *codeptr);

/* target-begin / target-end: kind is an OMPT_TARGET* value (with
 * OMPT_TARGET_NOWAIT_BIT for nowait), device_num the construct's device. */
void ompt_target_begin(int kind, int device_num);
void ompt_target_end(void);

/* One data operation; begin and end are raised around the operation with
 * the same struct, which carries the host_op_id between them. A device
 * number of OMPT_HOST stands for the host (omp_get_initial_device()),
 * OMPT_NO_DEVICE for none (raised as -1, as LLVM does for a free's
 * destination). */
#define OMPT_HOST (-1)
#define OMPT_NO_DEVICE (-2)
struct ompt_op {
  int optype;
  void *src;
  int src_device;
  void *dst;
  int dst_device;
  size_t bytes;
  uint64_t host_op_id;
  uint64_t t0; /* its begin on the device clock, when traced (else 0) */
  /* When traced: its construct's target_id and codeptr_ra (set at begin),
   * and where the plugin did the work (times, 0, 0: not timed: the record
   * gets t0 and its end). With `deferred` set before ompt_op_end, the
   * caller appends the record itself once the work ended (ompt_op_record:
   * a queued copy). */
  uint64_t target_id;
  const void *codeptr;
  bool deferred;
  uint64_t times[2];
};
/* Raise the events (ompt.c); callers use the guarded forms below. */
void ompt_raise_op_begin(struct ompt_op *op);
void ompt_raise_op_end(struct ompt_op *op);
/* An operation about to be raised: its kind, ends and bytes. */
static inline struct ompt_op ompt_op_make(int optype, void *src, int src_device,
                                          void *dst, int dst_device,
                                          size_t bytes) {
  return (struct ompt_op){.optype = optype,
                          .src = src,
                          .src_device = src_device,
                          .dst = dst,
                          .dst_device = dst_device,
                          .bytes = bytes};
}
/* op's trace record (after ompt_op_begin traced it: op->t0 != 0). */
void ompt_op_record(const struct ompt_op *op);
/* One kernel launch's target-submit events and trace record. The caller
 * fills teams (ompt_requested_teams); ompt_submit_begin fills the rest.
 * When `traced`, a device trace record is due: the caller may have the
 * plugin store the device's start and end in `times` (time_next_op); with
 * `deferred` set before ompt_submit_end, the caller appends the record
 * itself once the kernel ended (ompt_kernel_record: a queued kernel). */
struct ompt_kernel {
  unsigned teams;
  uint64_t host_op_id;
  uint64_t target_id;
  int device;
  bool traced, deferred;
  uint64_t t0;       /* the host's begin, the record's time without times */
  uint64_t times[2]; /* the device's start and end; 0, 0: not timed */
};
void ompt_raise_submit_begin(struct ompt_kernel *k);
void ompt_raise_submit_end(struct ompt_kernel *k);
/* k's trace record: the device's times when the plugin stored them, else
 * the host's begin and now. */
void ompt_kernel_record(const struct ompt_kernel *k);

/* Without a tool these cost one load: they sit on every copy, allocation
 * and launch. */
static inline void ompt_op_begin(struct ompt_op *op) {
  if (ompt_active)
    ompt_raise_op_begin(op);
}
static inline void ompt_op_end(struct ompt_op *op) {
  if (ompt_active)
    ompt_raise_op_end(op);
}

/* requested_num_teams of a launch whose num_teams argument is `n`: 1 for
 * a region without teams (n < 0, one initial team, as LLVM reports), 0
 * where no number was requested. */
static inline unsigned ompt_requested_teams(int32_t n) {
  return n < 0 ? 1u : (unsigned)n;
}

/* target-submit-begin / -end around a kernel launch. */
static inline void ompt_submit_begin(struct ompt_kernel *k) {
  if (ompt_active)
    ompt_raise_submit_begin(k);
}
static inline void ompt_submit_end(struct ompt_kernel *k) {
  if (ompt_active)
    ompt_raise_submit_end(k);
}

/* The device events. ompt_device_load returns the module id it gave. */
void ompt_device_initialize(int device_num, const char *type);
void ompt_device_finalize(int device_num);
uint64_t ompt_device_load(int device_num, const void *host_addr,
                          size_t bytes);
void ompt_device_unload(int device_num, uint64_t module_id);

#endif
