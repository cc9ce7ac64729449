/*
 * host.h - what host.c (the synchronous entry points of remote devices)
 * offers queues.c beside the __tgt_rtl_* calls.
 */
#ifndef SIMDEVICE_MPI_HOST_H
#define SIMDEVICE_MPI_HOST_H

#include <stdint.h>

#include "link.h"

/* A copy between the host and device `id` run now when no other call
 * holds the device: *ran = 1 and its status (the error set on failure);
 * *ran = 0, nothing done, when the device is busy. */
HIDDEN int32_t host_copy_if_free(int32_t id, void *tgt, void *hst,
                                 int64_t size, int to_device, int *ran);

#endif
