/*
 * api.h - the device memory routines' workers, shared by the synchronous
 * routines (api.c) and their asynchronous forms (api_async.c). Each names
 * `routine` in its messages, never ends the program, and returns 0 or an
 * errno value (EINVAL for a bad argument or a failed copy).
 *
 * Thread safety: as api.c (mapping-table work under dev->map.lock).
 */
#ifndef SIMTARGET_API_H
#define SIMTARGET_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

/* A routine's device_num: 1 for the host, 0 with *dev for a ready device,
 * -1 after printing why it is neither. */
HIDDEN int api_device(const char *routine, int device_num,
                      struct device **dev);
/* `size` bytes of memory of `kind` (TARGET_ALLOC_*) for device_num (malloc
 * for the host), or NULL after printing why, naming `routine`. */
HIDDEN void *api_alloc(const char *routine, size_t size, int device_num,
                       int32_t kind);
/* Free what api_alloc returned; a failure is printed, naming `routine`. */
HIDDEN void api_free(const char *routine, void *ptr, int device_num);
HIDDEN int api_memcpy(const char *routine, void *dst, const void *src,
                      size_t length, size_t dst_offset, size_t src_offset,
                      int dst_device, int src_device);
/* The argument checks of omp_target_memcpy_rect alone. */
HIDDEN int api_memcpy_rect_check(const char *routine, void *dst,
                                 const void *src, size_t element_size,
                                 int num_dims, const size_t *volume,
                                 const size_t *dst_offsets,
                                 const size_t *src_offsets,
                                 const size_t *dst_dimensions,
                                 const size_t *src_dimensions);
HIDDEN int api_memcpy_rect(const char *routine, void *dst, const void *src,
                           size_t element_size, int num_dims,
                           const size_t *volume, const size_t *dst_offsets,
                           const size_t *src_offsets,
                           const size_t *dst_dimensions,
                           const size_t *src_dimensions, int dst_device,
                           int src_device);
HIDDEN int api_memset(const char *routine, void *ptr, int value,
                      size_t count, int device_num);

#endif
