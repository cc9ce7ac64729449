/*
 * host_objects.h - where a host address lives (a global symbol, a frame of
 * the calling thread's stack, the heap) and which argument of a construct
 * carried a pointer to it, and the whole explanation of a kernel's fault:
 * for the report of a kernel that used a wrong address (launch.c).
 *
 * Thread safety: no shared state; call it on the construct's own thread.
 */
#ifndef SIMTARGET_HOST_OBJECTS_H
#define SIMTARGET_HOST_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map_args.h"

/* "0x... is a host address, in the global `g` ...; the pointer came from
 * argument 1 `p` ..." into buf; false when addr is no host memory at all.
 * `a` (may be NULL) is the construct's argument list. */
HIDDEN bool host_object_describe(uintptr_t addr, const struct map_args *a,
                                 char *buf, size_t len);

struct device;
/* A kernel of region `region` (its host entry address) with arguments `a`
 * faulted on `dev`: ask the plugin where (__tgt_rtl_get_last_error), and
 * record in host terms why that address was wrong (report_error_set, the
 * cause the failure report prints): a host function without a device
 * version, a device address inside or past a mapped object, memory unmapped
 * earlier, a host address and the argument that carried it. Records
 * nothing when the plugin says no address. Takes dev->lock and
 * dev->map.lock; call it with neither held. */
HIDDEN void host_objects_explain_fault(struct device *dev, const void *region,
                                       const struct map_args *a);

#endif
