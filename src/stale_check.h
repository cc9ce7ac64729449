/*
 * stale_check.h - SIMTARGET_CHECK=stale (issue 32 item 3): device results
 * that are dropped, and kernels that run on a device copy older than the
 * host's, found by comparing the copies (src/stale_check.c).
 *
 * Each checked entry keeps a record (mapping_entry.check): the host's bytes
 * and the device's bytes as they were at the entry's last sync (its
 * creation, a copy to or from the device). The device changed what differs
 * from its bytes then; the host changed what differs from its own. Rules
 * (ids in the README, "Checks"):
 *   released-unread  an entry removed without `from` while its device copy
 *                    holds bytes the host never got;
 *   mapped-at-exit   the same for an entry still mapped when the program
 *                    ends (`enter data` twice, `exit data` once);
 *   from-skipped     a `from` that copied nothing (the count stayed above
 *                    zero), after which the host changed bytes the device
 *                    had changed too: the copy back at the enclosing end
 *                    overwrites the host's work done on stale values;
 *   stale-launch     a kernel launched on a device copy that the host
 *                    changed after its last `to` copy, without `target
 *                    update to`.
 * Under memcheck (RUNNING_ON_VALGRIND) the host bytes whose device values
 * were dropped or are still to come (a skipped `from`, a `nowait`
 * region's pending copy back) are marked undefined until a copy writes
 * them, so memcheck reports the host's first real use of them.
 *
 * Entries touched by asynchronous constructs lose their record (their
 * copies land later): they are not compared.
 *
 * Locking: every function taking a mapping entry runs under its device's
 * dev->map.lock (maps.c); the construct is thread-local.
 */
#ifndef SIMTARGET_STALE_CHECK_H
#define SIMTARGET_STALE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "omptarget.h"
#include "settings.h"

static inline bool stale_check_on(void) {
  return __builtin_expect((settings_get()->checks & CHECK_STALE) != 0, 0);
}

/* The construct the calling thread is running (entry points). */
HIDDEN void stale_check_construct(const ident_t *loc, const char *what);

/* An entry just created: record the host's and the device's bytes. */
HIDDEN void stale_entry_created(struct device *dev, struct mapping_entry *e);
/* A synchronous copy of host [hst, hst+size) of e completed (to the device
 * when to_device): both sides now hold the host's bytes there. */
HIDDEN void stale_synced(struct mapping_entry *e, uintptr_t hst, int64_t size,
                         bool to_device);
/* The runtime itself wrote `len` bytes into the device copy of host
 * [hst, hst+len) of e (a lambda capture pointed at its device copy): they
 * are no result of the kernel. */
HIDDEN void stale_device_written(struct mapping_entry *e, uintptr_t hst,
                                 const void *bytes, size_t len);
/* An asynchronous construct uses e: its copies land later, e is no longer
 * compared. */
HIDDEN void stale_forget(struct mapping_entry *e);
/* A `from` on [hst, hst+size) of e copied nothing: the count stayed above
 * zero. */
HIDDEN void stale_from_skipped(struct device *dev, struct mapping_entry *e,
                               uintptr_t hst, int64_t size);
/* A synchronous copy of [hst, hst+size) back from the device is about to
 * overwrite the host's bytes (from-skipped). */
HIDDEN void stale_before_copy_back(struct device *dev, struct mapping_entry *e,
                                   uintptr_t hst, int64_t size);
/* e is about to be removed by a construct that copies back (not the undo
 * of a failed region): released-unread. */
HIDDEN void stale_released(struct device *dev, struct mapping_entry *e);
/* A kernel is about to run with e mapped (stale-launch); the region holds
 * e until stale_region_ended. */
HIDDEN void stale_before_launch(struct device *dev, struct mapping_entry *e);
/* The end (or undo) of a region that stale_before_launch saw begins. */
HIDDEN void stale_region_ended(struct mapping_entry *e);
/* A `nowait` construct queued the copy of host [hst, hst+size) of e back. */
HIDDEN void stale_copy_back_queued(const struct mapping_entry *e, uintptr_t hst,
                                   int64_t size);
/* The program ends: every device's entries still mapped (mapped-at-exit).
 * Once; the devices must still run. */
HIDDEN void stale_check_at_exit(void);

#endif
