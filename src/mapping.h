/*
 * mapping.h - the host -> device mapping table of one device: an
 * interval-keyed balanced tree (O(log n) lookup by any address inside an
 * entry), reference counts, and shadow pointers.
 *
 * Thread safety: every function here but mapping_table_init/destroy
 * requires table->lock to be held by the caller (maps.c and api.c take it
 * around a whole construct's lookups); each checks that it is
 * (LOCK_ASSERT_HELD, debug builds).
 *
 * Entry lifetime: an entry whose device memory is still used by queued work
 * is pinned (mapping_pin). Removing a pinned entry takes it out of the
 * table at once but frees it only at its last mapping_unpin. The table
 * functions never call the device; mapping_entry_remove and
 * mapping_entry_unpin (mapping_memory.h) wrap remove and unpin and also
 * free the entry's device memory when the entry goes.
 */
#ifndef SIMTARGET_MAPPING_H
#define SIMTARGET_MAPPING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

#define MAPPING_REFCOUNT_INFINITE UINT64_MAX

struct async_record;
struct device;

/* A pointer inside mapped host memory whose device copy was redirected to a
 * device pointee (PTR_AND_OBJ / ATTACH). */
struct shadow_ptr {
  uintptr_t hst_ptr_addr;  /* where the host pointer lives */
  uintptr_t hst_ptr_value; /* its host value, restored after FROM copies */
  uintptr_t tgt_ptr_addr;  /* the device copy of the pointer */
  uintptr_t tgt_ptr_value; /* the device pointee address written there */
  struct shadow_ptr *next;
};

struct mapping_entry {
  /* The first 64-byte line (entries are 64-byte aligned, mapping.c) holds
   * all that the lookup of a present object and its reference counting
   * read and write, so a construct on an entry that is not in the cache
   * misses once, not three times. */
  uintptr_t hst_begin, hst_end; /* [begin, end) on the host */
  uintptr_t tgt_begin;          /* device address of hst_begin */
  uint64_t dyn_refcount;        /* MAPPING_REFCOUNT_INFINITE: never removed */
  uint64_t hold_refcount;       /* ompx_hold */
  /* An asynchronous construct (src/async.h) whose queued copy back or
   * removal of this entry has not completed: other constructs wait for it. */
  struct async_record *busy;
  struct mapping_entry *hash_next; /* hash chain, private to mapping.c */
  struct shadow_ptr *shadows;
  /* The base pointer of the section that created the entry (a for
   * a[5:10]; hst_begin when unknown): a zero-size lookup of an address in
   * [hst_base, hst_begin) names this entry (mapping_find_zero_size). */
  uintptr_t hst_base;
  /* How many asynchronous constructs in flight have queued work that uses
   * this entry's device memory (src/async.c). A removed entry that is still
   * pinned leaves the table at once but lives on, `unlinked`, until the last
   * of them completes (mapping_unpin): a kernel still running never sees its
   * device memory freed and reused by another construct. */
  uint32_t pins;
  bool unlinked;
  bool owned;                   /* tgt memory allocated by us (freed on removal) */
  bool associated;              /* made by omp_target_associate_ptr */
  /* A bug-finding check's record of the entry (src/stale_check.c): one
   * malloc'ed block, NULL when unchecked; freed with the entry. */
  void *check;
  /* tree links, private to mapping.c */
  struct mapping_entry *left, *right;
  int height;
  char name[96];                /* "x[0:16]" when the compiler gave names */
};

#define MAPPING_REMOVED_KEPT 16

struct mapping_table {
  pthread_mutex_t lock;
  struct mapping_entry *root;
  /* The entry with the greatest host begin, or NULL: a lookup at or above
   * its begin (the next heap object, as allocations mostly grow upward)
   * needs no descent. */
  struct mapping_entry *last;
  size_t count;
  /* Entries by exact host begin (chained; NULL until the first insert, or
   * after an allocation failure: lookups then use the tree alone). */
  struct mapping_entry **buckets;
  size_t nbuckets; /* a power of two */
  /* Every device range ever inserted lies in [tgt_lo, tgt_hi): lets
   * mapping_find_device answer "not a device address" without a scan. */
  uintptr_t tgt_lo, tgt_hi;
  /* The last MAPPING_REMOVED_KEPT entries removed, by device range, so that
   * a kernel fault in memory unmapped earlier names what was there. */
  struct mapping_removed {
    uintptr_t hst_begin, tgt_begin, tgt_end;
    char name[96];
  } removed[MAPPING_REMOVED_KEPT];
  unsigned removed_next;
};

enum mapping_overlap {
  MAPPING_ABSENT = 0,  /* no entry overlaps [begin, begin+size) */
  MAPPING_CONTAINED,   /* one entry contains the whole range */
  MAPPING_EXTENDS,     /* overlaps an entry but is not contained in it */
};

HIDDEN void mapping_table_init(struct mapping_table *t);
/* The most recent removed entry whose device range held addr, or NULL. */
HIDDEN const struct mapping_removed *
mapping_find_removed(struct mapping_table *t, uintptr_t addr);
/* Frees the entries (not device memory). */
HIDDEN void mapping_table_destroy(struct mapping_table *t);
/* Find the entry overlapping [begin, begin+size) (size 0: containing begin,
 * or the entry starting exactly at begin). */
HIDDEN enum mapping_overlap mapping_lookup(struct mapping_table *t,
                                           uintptr_t begin, uint64_t size,
                                           struct mapping_entry **entry);
/* The entry containing host address `addr`, or NULL. */
HIDDEN struct mapping_entry *mapping_find(struct mapping_table *t,
                                          uintptr_t addr);
/* The entry a zero-size lookup of `addr` (a pointer used implicitly, or in
 * use_device_ptr) names: the entry containing addr or, as OpenMP 5.1's
 * pointer initialisation and LLVM 15+ do, the first entry after addr whose
 * section's base pointer lies at or before addr (p = a; map(a[5:10])). */
HIDDEN struct mapping_entry *mapping_find_zero_size(struct mapping_table *t,
                                                    uintptr_t addr);
/* The entry whose device range contains device address `addr`, or NULL
 * (linear, but O(1) for addresses outside every device range ever mapped,
 * such as host addresses on simdevice). */
HIDDEN struct mapping_entry *mapping_find_device(struct mapping_table *t,
                                                 uintptr_t addr);
/* Insert a new entry (the range must not overlap an existing one). Returns
 * the entry or NULL on allocation failure. */
HIDDEN struct mapping_entry *mapping_insert(struct mapping_table *t,
                                            uintptr_t hst_begin,
                                            uintptr_t hst_end,
                                            uintptr_t tgt_begin,
                                            const char *name);
/* Take an entry out of the table and free it and its shadows (not the
 * device memory). A pinned entry is only unlinked (it is freed by its last
 * mapping_unpin). Returns true when the entry was freed, so the caller frees
 * its device memory now; false when that is left to the last unpin. */
HIDDEN bool mapping_remove(struct mapping_table *t, struct mapping_entry *e);
/* One more in-flight construct uses `e`'s device memory. */
HIDDEN void mapping_pin(struct mapping_table *t, struct mapping_entry *e);
/* One in-flight construct no longer uses `e`. Returns true when that freed
 * an unlinked entry: the caller then frees its device memory (read before). */
HIDDEN bool mapping_unpin(struct mapping_table *t, struct mapping_entry *e);
/* Visit entries in host-address order; stop when fn returns non-zero. */
HIDDEN void mapping_foreach(struct mapping_table *t,
                            int (*fn)(struct mapping_entry *, void *),
                            void *arg);
/* Check the table's invariants (tree order, every entry in the chain of
 * its hash bucket and nothing else there, counts): 0, or -1 with the broken
 * one recorded (report_error_set). For tests; O(n). */
HIDDEN int mapping_check(struct mapping_table *t);
/* Print the table ("host begin..end -> device begin, refcounts, name"). */
HIDDEN void mapping_dump(struct mapping_table *t, FILE *out, const char *title);
/* Keep device `device_id`'s table as it is now, at the moment a construct
 * fails and before its entries are undone, for the failure report
 * (failure.c prints it; the first kept since report_error_clear wins,
 * report.h). Best effort: nothing is kept out of memory. */
HIDDEN void mapping_keep_for_report(struct mapping_table *t, int device_id);

#endif
