/*
 * trace.h - device tracing for simtarget-ompt-timeline
 * (SIMTARGET_OMPT_TIMELINE_TRACE=1): the copies and kernels of a traced
 * device are drawn with the times of their trace records (ompt_start_trace,
 * taken by the runtime, on the device's clock: for simtarget
 * CLOCK_MONOTONIC, the profile's clock) instead of the callbacks' times.
 *
 * The callback at an operation's begin says on which track its event
 * goes (trace_expect); the event is written when the record of that
 * host_op_id comes back in a buffer (on a full buffer, ompt_flush_trace,
 * and at the latest before device_finalize). An operation whose record
 * never comes (the program ends by _exit) is not drawn.
 */
#ifndef SIMTARGET_OMPT_TIMELINE_TRACE_H
#define SIMTARGET_OMPT_TIMELINE_TRACE_H

#include "ompt_decls.h"

#include <stdbool.h>

/* Starts tracing data operations and kernels on `device` when the lookup
 * offers it; false (said on stderr) when it does not. */
bool trace_start(int device_num, ompt_device_t *device,
                 ompt_function_lookup_t lookup);

/* Whether `device_num`'s operations are drawn from its records. */
bool trace_on(int device_num);

/* What the record of `host_op_id` becomes: an event of device `device` on
 * track `track` (a nowait lane: `queued`), timed by the record; a data
 * operation's fields and thread come from the record, a kernel's name and
 * args (the inside of a JSON object) are given here (NULL: a data
 * operation). False when there is no memory to keep it (said). */
bool trace_expect(uint64_t host_op_id, int device, long track, bool queued,
                  const char *kernel_name, const char *kernel_args);

#endif
