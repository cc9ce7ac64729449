/*
 * events.h - the timeline entries of device memory and copies, as
 * LIBOMPTARGET_PROFILE names them (src/profile.c), from a callback or a
 * trace record alike.
 */
#ifndef SIMTARGET_OMPT_TIMELINE_EVENTS_H
#define SIMTARGET_OMPT_TIMELINE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An allocation (`alloc`) or a free of `dev_ptr` on device `device`'s
 * memory track. */
void ev_memory(bool alloc, int device, void *dev_ptr, size_t bytes,
               uint64_t t0, uint64_t t1, long host_tid);

/* A copy on device `device`'s track `track` (its copies track or a nowait
 * lane: `queued`). */
void ev_copy(bool to_device, int device, long track, bool queued,
             void *host_ptr, size_t bytes, uint64_t t0, uint64_t t1,
             long host_tid);

#endif
