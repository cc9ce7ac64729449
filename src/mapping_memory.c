/*
 * mapping_memory.c - removing and unpinning mapping entries together with
 * their device memory (mapping_memory.h): the one place that knows a removed entry
 * frees its device memory now, or at its last unpin while in-flight
 * constructs still use it. maps.c (synchronous removals, rollback) and
 * async.c (removals and unpins at a record's completion) both call it.
 * Apart from mapping.c because it calls the device (device_delete), which
 * the table itself never does.
 *
 * Locking: the caller holds dev->map.lock (checked); the entry is read
 * before the table frees it.
 */
#include "mapping_memory.h"

#include "lock_check.h"

/* The device memory to free once the table has let go of `e`: NULL when
 * the memory is not ours (declare target globals, associated pointers). */
static void *owned_memory(const struct mapping_entry *e) {
  return e->owned ? (void *)e->tgt_begin : NULL;
}

static int free_memory(struct device *dev, void *tgt) {
  return tgt ? device_delete(dev, tgt) : 0;
}

int mapping_entry_remove(struct device *dev, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&dev->map.lock);
  void *tgt = owned_memory(e);
  return mapping_remove(&dev->map, e) ? free_memory(dev, tgt) : 0;
}

int mapping_entry_unpin(struct device *dev, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&dev->map.lock);
  void *tgt = owned_memory(e);
  return mapping_unpin(&dev->map, e) ? free_memory(dev, tgt) : 0;
}
