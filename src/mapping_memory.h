/*
 * mapping_memory.h - removing and unpinning mapping entries together with
 * their device memory (src/mapping_memory.c), for maps.c and async.c.
 *
 * Locking: the caller holds dev->map.lock (checked). Each returns 0, or -1
 * when freeing the device memory failed (cause recorded).
 */
#ifndef SIMTARGET_MAPPING_MEMORY_H
#define SIMTARGET_MAPPING_MEMORY_H

#include "device.h"
#include "mapping.h"

/* Take `e` out of dev's table and free its device memory (when owned): now,
 * or, while in-flight constructs still pin it, at the last unpin. */
HIDDEN int mapping_entry_remove(struct device *dev, struct mapping_entry *e);
/* One in-flight construct is done with `e`; the last unpin of a removed
 * entry frees its device memory (when owned). */
HIDDEN int mapping_entry_unpin(struct device *dev, struct mapping_entry *e);

#endif
