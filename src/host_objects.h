/*
 * host_objects.h - where a host address lives (a global symbol, a frame of
 * the calling thread's stack, the heap) and which argument of a construct
 * carried a pointer to it: for the report of a kernel that used a host
 * address (launch.c).
 *
 * Thread safety: no shared state; call it on the construct's own thread.
 */
#ifndef SIMTARGET_HOST_OBJECTS_H
#define SIMTARGET_HOST_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps.h"

/* "0x... is a host address, in the global `g` ...; the pointer came from
 * argument 1 `p` ..." into buf; false when addr is no host memory at all.
 * `a` (may be NULL) is the construct's argument list. */
HIDDEN bool host_object_describe(uintptr_t addr, const struct map_args *a,
                                 char *buf, size_t len);

#endif
