/*
 * mapping_ops.h - the mapping table's operations for the files outside the
 * mapping layer (api.c, device.c, interface.c, launch.c, failure.c,
 * host_objects.c): each
 * takes the table's lock itself and is the only writer of the entries it
 * makes. Nothing above the mapping layer locks a table or writes an entry
 * field through these callers (issue 27 item 3).
 *
 * Thread safety: each function takes t->lock; call none with it held.
 */
#ifndef SIMTARGET_MAPPING_OPS_H
#define SIMTARGET_MAPPING_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mapping.h"

/* An entry, copied out of the table for a message. */
struct mapping_range {
  uintptr_t hst_begin, hst_end, tgt_begin;
  uint64_t hold_refcount;
  char name[96];
};

/* Whether host address `addr` is inside a mapped entry. */
HIDDEN bool mapping_is_present(struct mapping_table *t, uintptr_t addr);
/* The device address of host address `addr`, or 0 when it is not mapped. */
HIDDEN uintptr_t mapping_device_address(struct mapping_table *t,
                                        uintptr_t addr);

/* omp_target_associate_ptr: host [hb, hb+size) -> device tb, with an
 * infinite reference count, memory not ours. 0 also when exactly that
 * association (or a mapping containing it at the same device address)
 * exists; EEXIST with *other when the host range is mapped elsewhere;
 * ENOMEM (cause recorded) when out of host memory. */
HIDDEN int mapping_associate(struct mapping_table *t, uintptr_t hb,
                             size_t size, uintptr_t tb,
                             struct mapping_range *other);
/* omp_target_disassociate_ptr: 0 when the association starting at hb went;
 * ENOENT when no entry starts at hb, EPERM when the entry there was not
 * made by mapping_associate, EBUSY (*other: its hold count) while an ompx_hold
 * map holds it. */
HIDDEN int mapping_disassociate(struct mapping_table *t, uintptr_t hb,
                                struct mapping_range *other);

/* A declare target global: host [hb, hb+size) -> its image's device
 * address tb for the whole program (infinite reference count, memory not
 * ours). 0; EEXIST with *other when the range overlaps a mapped entry;
 * -1 with the cause recorded when the entry cannot be made. */
HIDDEN int mapping_add_global(struct mapping_table *t, uintptr_t hb,
                              size_t size, uintptr_t tb, const char *name,
                              struct mapping_range *other);
/* Remove the global mapping_add_global made for [hb, hb+size), if it is
 * still there as made (an image unloaded). */
HIDDEN void mapping_remove_global(struct mapping_table *t, uintptr_t hb,
                                  size_t size);

/* ---- for the explanation of a kernel's fault (host_objects.c) ---- */
/* The entry whose host range holds addr, into *out. */
HIDDEN bool mapping_entry_of_host(struct mapping_table *t, uintptr_t addr,
                                  struct mapping_range *out);
/* The entry whose device range holds addr or, failing that, the nearest
 * one that ends at most `reach` bytes before it (an overrun into a guard
 * page), into *out; *beyond: addr lies after that entry, not inside. */
HIDDEN bool mapping_entry_near_device(struct mapping_table *t, uintptr_t addr,
                                      uintptr_t reach,
                                      struct mapping_range *out,
                                      bool *beyond);
/* The nearest entry whose device range starts at most `reach` bytes after
 * addr (a read before a section's start, which AddressSanitizer in the
 * device process reports to the byte), into *out. */
HIDDEN bool mapping_entry_after_device(struct mapping_table *t, uintptr_t addr,
                                       uintptr_t reach,
                                       struct mapping_range *out);
/* The most recent removed entry whose device range held addr, into *out. */
HIDDEN bool mapping_removed_at(struct mapping_table *t, uintptr_t addr,
                               struct mapping_removed *out);

/* mapping_dump under the table's lock. */
HIDDEN void mapping_dump_locking(struct mapping_table *t, FILE *out,
                                 const char *title);
/* mapping_dump if the lock is free now (the program is ending and another
 * thread may hold it forever); false when it was not. */
HIDDEN bool mapping_dump_if_free(struct mapping_table *t, FILE *out,
                                 const char *title);
/* mapping_foreach if the lock is free now (at exit, as
 * mapping_dump_if_free); false when it was not. */
HIDDEN bool mapping_foreach_if_free(struct mapping_table *t,
                                    int (*fn)(struct mapping_entry *, void *),
                                    void *arg);
/* mapping_keep_for_report under the table's lock. */
HIDDEN void mapping_keep_for_report_locking(struct mapping_table *t,
                                            int device_id);

#endif
