/*
 * maps.h - what each map-type bit does: target data begin / end / update,
 * the argument translation of a target region, and user-defined mappers.
 *
 * Every function returns 0 on success and -1 on failure after recording the
 * cause with report_error_set() (naming the construct rule that was broken,
 * the variable and the address ranges). Nothing here prints an error or
 * exits: failure_apply_policy() (failure.h) decides.
 *
 * Thread safety: each call takes dev->map.lock for its table work, and
 * under it takes the lock of its asynchronous record, if any (async.h says
 * why that order is safe). None may be called with dev->map.lock held.
 */
#ifndef SIMTARGET_MAPS_H
#define SIMTARGET_MAPS_H

#include <stdint.h>

#include "device.h"
#include "map_args.h"

struct async_record;

/* LLVM's __tgt_target_non_contig: one descriptor per dimension, outermost
 * first, the last one the element (offset 0, count 1, stride = element
 * size); counts in elements, strides in bytes (including the section's
 * stride). clang 22 emits the offset as the section's lower bound, in
 * elements of the dimension. */
struct non_contig_dim {
  int64_t offset;
  int64_t count;
  int64_t stride;
};

/* `target data` / `target enter data` / the begin of a `target`.
 * RETURN_PARAM entries get the device address written to base[i]. */
HIDDEN int maps_data_begin(struct device *dev, const struct map_args *a);
/* `target data` end / `target exit data` / the end of a `target`. */
HIDDEN int maps_data_end(struct device *dev, const struct map_args *a);
/* `target update`. */
HIDDEN int maps_data_update(struct device *dev, const struct map_args *a);
/* The same three on an asynchronous construct's record (src/async.h): the
 * copies are queued, host pointer restores and removals are deferred to the
 * record's completion. The synchronous forms pass NULL. */
HIDDEN int maps_data_begin_async(struct device *dev, const struct map_args *a,
                                 struct async_record *rec);
HIDDEN int maps_data_end_async(struct device *dev, const struct map_args *a,
                               struct async_record *rec);
HIDDEN int maps_data_update_async(struct device *dev, const struct map_args *a,
                                  struct async_record *rec);

/* ---- target regions: one map list for begin, then end or undo ---------
 * The list is checked and flattened once (each mapper called once), and
 * everything its passes record is allocated up front, so that undoing the
 * begin of a region that then failed allocates nothing: an undo that could
 * fail for want of memory would leak the region's references. */
struct maps_construct;
/* NULL (cause recorded) when the arrays are bad or memory is short. */
HIDDEN struct maps_construct *maps_construct_new(struct device *dev,
                                                 const struct map_args *a,
                                                 struct async_record *rec);
HIDDEN int maps_construct_begin(struct maps_construct *c);
HIDDEN int maps_construct_end(struct maps_construct *c);
/* Undo a begin whose region failed, once nothing queued on the record is
 * in flight (wait for it first): drop the references, remove what reached
 * zero, copy nothing back (the host version of the region runs next and
 * must see the host's own data). Allocates nothing. */
HIDDEN int maps_construct_undo(struct maps_construct *c);
HIDDEN void maps_construct_free(struct maps_construct *c);

/* The kernel-parameter value of a TARGET_PARAM entry that is neither LITERAL
 * nor PRIVATE, after maps_data_begin: device begin - (begin - base). An
 * unmapped zero-size entry keeps its host value (base). */
HIDDEN int maps_kernel_arg(struct device *dev, void *base, void *begin,
                           int64_t size, int64_t type, void **value);

/* SIMTARGET_CHECK=stale: the runtime wrote `len` bytes at the device copy
 * of host address hst (a lambda capture fixed up at launch), not a kernel. */
HIDDEN void maps_note_runtime_write(struct device *dev, uintptr_t hst,
                                    const void *bytes, size_t len);

/* ---- user-defined mappers (src/mappers.c) ---------------------------- */

/* The components a mapper function pushed, as parallel arrays: a
 * self-contained argument list whose MEMBER_OF indices refer to it. */
struct map_components {
  uint32_t magic;   /* MAP_COMPONENTS_MAGIC while alive: rejects bad handles */
  int32_t num;
  size_t cap;       /* of every array (src/array.h) */
  void **base, **begin;
  int64_t *sizes, *types;
  void **names;
  int failed;       /* a push ran out of memory */
};
#define MAP_COMPONENTS_MAGIC 0x6d617070u

/* Call `mapper` for one entry and collect its components into `out` (which
 * the caller releases with map_components_free, also on failure). Returns 0,
 * or -1 with report_error_set() (out of memory, or a bad component list). */
HIDDEN int mappers_expand(void *mapper, void *base, void *begin, int64_t size,
                          int64_t type, void *name, struct map_components *out);
HIDDEN void map_components_free(struct map_components *c);

#endif
