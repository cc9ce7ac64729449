/*
 * ompt_trace.h - OMPT device tracing (OpenMP 5.1 4.2.5 / 4.6.2): the device
 * entry points a tool finds through the lookup handed to it in
 * device_initialize (ompt_set_trace_ompt, ompt_start_trace, ompt_pause_trace,
 * ompt_flush_trace, ompt_stop_trace, ompt_get_device_time,
 * ompt_translate_time, ompt_get_device_num_procs, ompt_advance_buffer_cursor,
 * ompt_get_record_type, ompt_get_record_ompt) and the standard trace records
 * (ompt_record_ompt_t) of each copy, allocation, free and kernel.
 *
 * Times: the device clock is CLOCK_MONOTONIC in nanoseconds (simdevice runs
 * on the host's own clock, one clock for every process of the machine). A
 * kernel's time and end_time are the device process's own start and end of
 * it where the plugin times work (time_next_op: simdevice), else the host's
 * around the plugin call; a queued copy's are the plugin queue's around its
 * memcpy there too; a synchronous copy's, an allocation's and a free's are
 * the host's around the plugin call (the host does a copy's memcpy into the
 * shared device memory). ompt_translate_time gives omp_get_wtime() seconds.
 *
 * Layer: bottom of src/, below ompt.c, which calls it.
 *
 * Thread safety: the per-device trace state is guarded by one lock, which
 * is not held while the tool's buffer callbacks run.
 */
#ifndef SIMTARGET_OMPT_TRACE_H
#define SIMTARGET_OMPT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*ompt_trace_entry)(void);

/* The device entry point `name`, or NULL. */
ompt_trace_entry ompt_trace_lookup(const char *name);

/* The handle given to the tool for device `device_num`. */
void *ompt_trace_device_handle(int device_num);

/* Whether records of callback kind `code` (ompt_callbacks_t) are being
 * traced on `device_num`. */
bool ompt_trace_on(int device_num, int code);

/* The device clock. */
uint64_t ompt_trace_now(void);

/* One record each; t0 and t1 are its begin and end on the device clock. */
struct ompt_trace_op {
  uint64_t target_id, host_op_id;
  int optype;
  void *src;
  int src_device;
  void *dst;
  int dst_device;
  size_t bytes;
  const void *codeptr;
};
void ompt_trace_data_op(int device_num, const struct ompt_trace_op *op,
                        uint64_t t0, uint64_t t1);
void ompt_trace_kernel(int device_num, uint64_t target_id,
                       uint64_t host_op_id, unsigned teams, uint64_t t0,
                       uint64_t t1);

/* The device is finalized: its last records go to the tool. */
void ompt_trace_device_finalize(int device_num);

#endif
