/*
 * host.h - what host.c (the synchronous entry points of remote devices)
 * offers queues.c beside the __tgt_rtl_* calls.
 */
#ifndef SIMDEVICE_MPI_HOST_H
#define SIMDEVICE_MPI_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "link.h"

/* OMPT device tracing: the times array __tgt_rtl_time_next_op armed for
 * this thread's next launch or queued copy on device id (NULL: none);
 * taking it disarms it. */
HIDDEN uint64_t *host_take_timing(int32_t id);

/* A copy between the host and device `id`, its start and end on the rank
 * stored in `times` when not NULL (OMPT device tracing). */
HIDDEN int32_t host_copy_timed(int32_t id, void *tgt, void *hst, int64_t size,
                               int to_device, uint64_t *times);
/* The same run now when no other call holds the device: *ran = 1 and its
 * status (the error set on failure); *ran = 0, nothing done, when the
 * device is busy. */
HIDDEN int32_t host_copy_if_free(int32_t id, void *tgt, void *hst,
                                 int64_t size, int to_device, uint64_t *times,
                                 int *ran);
/* A kernel launch, waited for: called on the rank as KernelArgs version
 * kargs_version says (0: an entry point older than __tgt_target_kernel),
 * its start and end stored in `times` when not NULL. */
HIDDEN int32_t host_run(int32_t id, void *entry, void **args,
                        ptrdiff_t *offsets, int32_t nargs, int32_t teams,
                        int32_t limit, uint32_t kargs_version,
                        uint64_t *times);

#endif
