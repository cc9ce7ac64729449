/*
 * trace.h - SIMTARGET_TRACE=<file>: a machine-readable trace of every
 * offload call, one JSON object per line (JSON Lines), in the schema
 * tools/simtarget-maps/trace.schema.json (version TRACE_SCHEMA_VERSION).
 * The compiler-team tool `simtarget-maps` reads it.
 *
 * Every address is written twice: raw ("0x7ffd...") and as a stable
 * symbolic reference ({"obj": n, "off": k, "class": "stack"}), objects
 * numbered in the order the trace first meets them, so two runs or two
 * compilers compare without address noise.
 *
 * The reference-count events are one mechanism (trace_refcount) shown in the
 * JSON trace and in the text trace under LIBOMPTARGET_INFO=0x80.
 *
 * Layer: beside report.c at the bottom of src/ (it calls only report.c and
 * settings.c). Events carry the construct sequence number of the calling
 * thread (set by trace_call), so events of constructs on different host
 * threads can be told apart.
 *
 * Thread safety: the output file and the object table are guarded by the
 * trace lock (trace.c); the current construct is thread-local.
 */
#ifndef SIMTARGET_TRACE_H
#define SIMTARGET_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omptarget.h"
#include "settings.h"

#define TRACE_SCHEMA_VERSION 2

/* A construct's argument arrays (the same layout as struct map_args). */
struct map_args;

/* What an entry point knows about the call besides its map arguments. */
struct trace_call_info {
  const char *entry;     /* the __tgt_* entry point's own name */
  const char *construct; /* "target", "target enter data", ... */
  const ident_t *loc;
  int64_t device_id;
  bool nowait;
  bool is_region;        /* a target region (kernel fields below are set) */
  uint32_t kargs_version; /* 0: not __tgt_target_kernel */
  int32_t num_teams, thread_limit;
  uint64_t tripcount;
};

HIDDEN bool trace_enabled(void);

/* The name of map-type bit number i of the table shared by the JSON trace
 * and the text trace ("to", "from", "always", ...), with its value in *bit;
 * NULL past the end. */
HIDDEN const char *map_type_bit_name(size_t i, int64_t *bit);

/* The start of a construct: writes its "call" event (arguments decoded) and
 * makes it the calling thread's current construct. */
HIDDEN void trace_call(const struct trace_call_info *info,
                       const struct map_args *a);
/* The construct and source location of the calling thread's last
 * trace_call (NULL, NULL before any). */
HIDDEN void trace_current_construct(const char **construct,
                                    const ident_t **loc);
/* A mapper's components for argument `arg` of the current construct. */
HIDDEN void trace_mapper(int32_t arg, int32_t num, void *const *base,
                         void *const *begin, const int64_t *sizes,
                         const int64_t *types, void *const *names);
/* The argument (and mapper component, or -1) the runtime works on now:
 * later events of this thread name it. */
HIDDEN void trace_set_arg(int32_t arg, int32_t component);
/* The end of the current construct: "ok", "queued" (nowait), "host"
 * (ran on the host) or "failed" with its cause. */
HIDDEN void trace_result(const char *status, const char *cause);

/* An entry of the mapping table: "created", "reused", "removed". */
HIDDEN void trace_entry(const char *action, uintptr_t hst_begin,
                        uintptr_t hst_end, uintptr_t tgt_begin,
                        uint64_t dyn, uint64_t hold, const char *name);

enum trace_count { TRACE_DYNAMIC, TRACE_HOLD };
enum trace_change {
  TRACE_INCREMENTED,
  TRACE_DECREMENTED,
  TRACE_SUPPRESSED, /* already counted in this construct */
  TRACE_RESET,      /* DELETE set the dynamic count to 0 */
  TRACE_DEFERRED_DELETE, /* reached 0: removed when the nowait completes */
};
/* What the change means for the construct's copies, said at the end of
 * the text line (the JSON trace shows the copies themselves, or their
 * absence, as "copy" events). */
enum trace_copy_note {
  TRACE_NOTE_NONE,
  TRACE_NOTE_TO_SKIPPED,   /* was present: `to` copies nothing */
  TRACE_NOTE_FROM_SKIPPED, /* not zero yet: `from` copies nothing back */
  TRACE_NOTE_LAST_FROM,    /* zero: copied back, then removed */
  TRACE_NOTE_LAST,         /* zero: removed */
};
/* One reference-count event: the JSON event and, under LIBOMPTARGET_INFO
 * bit INFO_REFCOUNT, the text line. */
HIDDEN void trace_refcount(enum trace_change change, enum trace_count count,
                           uintptr_t hst_begin, uint64_t before,
                           uint64_t after, const char *name,
                           enum trace_copy_note note);

/* A copy; `to_device` says the direction. */
HIDDEN void trace_copy(bool to_device, bool queued, const void *hst,
                       const void *tgt, int64_t size, const char *name);
/* A pointer attached: the device copy of host pointer `ptr_addr` now holds
 * `value` (the device version of host `host_value`). */
HIDDEN void trace_attach(uintptr_t ptr_addr, uintptr_t host_value,
                         uintptr_t value);
/* A lookup that did not simply find or miss its object: "extends"
 * (explicit extension), "absent_present" (map(present) of nothing),
 * "partial_skipped" (exit), "implicit_extends". */
HIDDEN void trace_lookup(const char *result, uintptr_t begin, int64_t size);

/* The kernel launch: its parameters, param_arg[p] the argument index each
 * one came from (-1: the dyn_ptr), as asked and as launched. */
struct trace_launch {
  const char *exec_mode; /* from the image's exec-mode global; NULL: none */
  int32_t num_teams, thread_limit; /* handed to the plugin */
  uint64_t tripcount;
};
HIDDEN void trace_kernel(const char *kernel, int32_t n, void *const *params,
                         const int32_t *param_arg, const struct map_args *a,
                         const struct trace_launch *launched);

/* A kernel or construct still queued when the program exits. */
HIDDEN void trace_note(const char *kind, const char *text);

#endif
