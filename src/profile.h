/*
 * profile.h - LIBOMPTARGET_PROFILE=<file>: a timeline of the offload work in
 * the Chrome Trace Event Format (a JSON array of events), which Perfetto,
 * chrome://tracing and tools/simtarget-timeline open.
 *
 * Tracks: pid 1 is the host process, one track per host thread (tid = the
 * thread's id); pid 2 + d is device d, with tracks "runtime" (its
 * start), "memory" (allocations and frees), "copies", "kernels" and one "nowait lane k" per asynchronous
 * construct in flight (overlapping nowait constructs get different lanes).
 * Every event is a complete ("X") event with a duration, an instant ("i")
 * event (a reference count changed), or a metadata ("M") event naming a
 * track. Times are CLOCK_MONOTONIC in microseconds.
 *
 * Cost when the variable is unset: each hook is behind PROFILE_ON(), one
 * load and one predictable branch.
 *
 * Layer: beside trace.c at the bottom of src/ (calls only settings.c).
 * Thread safety: the output file and the table of named tracks are guarded
 * by the profile lock (profile.c); each event is written whole under it,
 * with one pwrite that also rewrites the closing "]", so the file is valid
 * JSON at every moment: after exit() from any thread, _exit, or a crash.
 */
#ifndef SIMTARGET_PROFILE_H
#define SIMTARGET_PROFILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "omptarget.h"
#include "settings.h"

/* Set once, before main, when LIBOMPTARGET_PROFILE names a writable file;
 * cleared when the file is closed. */
HIDDEN extern _Atomic bool profile_on;
#define PROFILE_ON()                                                           \
  __builtin_expect(atomic_load_explicit(&profile_on, memory_order_relaxed), 0)

/* Nanoseconds of CLOCK_MONOTONIC. */
HIDDEN uint64_t profile_now(void);

/* A construct on the calling host thread: `construct` as trace.h names it
 * ("target", "enter", "exit", "update"); nests per thread. */
HIDDEN void profile_construct_begin(const char *construct, const ident_t *loc,
                                    int64_t device_id, bool nowait);
HIDDEN void profile_construct_end(const char *status);

/* Lane < 0: a synchronous operation on the device's own track; else the
 * nowait lane of an asynchronous construct (the time spent queueing). */
HIDDEN void profile_copy(int32_t device, int lane, bool to_device,
                         int64_t bytes, const char *name, uint64_t t0);
HIDDEN void profile_memory(int32_t device, bool alloc, int64_t bytes,
                           const void *tgt, uint64_t t0);
HIDDEN void profile_kernel(int32_t device, int lane, const char *kernel,
                           int32_t num_teams, int32_t thread_limit,
                           uint64_t t0);
/* A reference count changed (trace_refcount's event): an instant event on
 * the calling host thread, named "<var> <before>→<after>". */
HIDDEN void profile_refcount(const char *change, const char *count,
                             const char *name, uint64_t before,
                             uint64_t after);
/* Device `device` started (its process, the program's images loaded). */
HIDDEN void profile_startup(int32_t device, uint64_t t0);
/* The host thread waited from t0 until now for asynchronous `what`. */
HIDDEN void profile_wait(int32_t device, const char *what,
                         const ident_t *loc, uint64_t t0);

/* A nowait lane of device `device` for a construct starting now; -1 when
 * profiling is off. Released by profile_nowait_done. */
HIDDEN int profile_lane_take(int32_t device);
HIDDEN void profile_nowait_done(int32_t device, int lane, const char *what,
                                const ident_t *loc, bool failed, uint64_t t0);

#endif
