/*
 * maps.c - what every map-type bit does: target data begin / end / update,
 * kernel-argument translation, pointer attachment (PTR_AND_OBJ, ATTACH) and
 * shadow pointers. Follows LLVM libomptarget's observable behaviour
 * (clang-abi.md section 7 and 11.4; seed 000).
 *
 * Locking: each pass (run_pass: a data begin, end or update, and the undo
 * of a failed region) takes dev->map.lock once for all of its table work and
 * keeps it across the construct's transfers (simple and correct: no other
 * thread can see a half-mapped construct): the steps and finishers of a
 * pass run under it (they check so). Mapper functions are called before the
 * lock is taken, since they are compiler-generated code. An asynchronous
 * construct queues its copies and records its deferred work under the table
 * lock, which takes its record's lock (table -> record): safe, because
 * nothing else touches a record being dispatched (async.c says why), and
 * the table lock is dropped before waiting for another construct's record
 * (wait_for_busy_entries), which takes record -> table.
 *
 * Per-construct bookkeeping (struct maps_construct): every entry whose count
 * changed is recorded once, so a count changes at most once per construct
 * however many map entries of the construct name the same object; entries
 * created by the construct are marked (TO copies and ATTACH depend on it);
 * entries to remove are removed only after all of the construct's copies.
 *
 * Asynchronous constructs (an async record, src/async.h): TO and FROM copies
 * go on the record's queue; host pointer restores after FROM copies and the
 * removal of entries whose counts reached zero are deferred to the record's
 * completion, and those entries are marked busy until then. A construct that
 * meets an entry busy for another record drops the table lock, waits for
 * that record, and starts over (wait_for_busy_entries), so no construct ever
 * sees an entry whose copy back has not landed.
 */
#include "maps.h"
#include "array.h"
#include "async.h"
#include "lock_check.h"
#include "mapping_memory.h"
#include "memory_blocks.h"
#include "stale_check.h"
#include "trace.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTR_SIZE ((int64_t)sizeof(void *))
#define NON_CONTIG_MAX_DIMS 64

/* The data bits: with none of them, RETURN_PARAM is a pure address query. */
#define DATA_BITS                                                              \
  (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM | OMP_TGT_MAPTYPE_ALWAYS |        \
   OMP_TGT_MAPTYPE_DELETE | OMP_TGT_MAPTYPE_PTR_AND_OBJ |                      \
   OMP_TGT_MAPTYPE_PRESENT)

/* One map entry of a construct after mapper expansion. */
struct map_item {
  void *base, *begin;
  int64_t size, type;
  void *name;
  void **return_slot; /* &args_base[i] for the construct's own entries */
  int32_t index;      /* argument index, for messages */
  int32_t component;  /* component index inside a mapper, or -1 */
};

struct touched {
  struct mapping_entry *entry;
  bool dyn_changed, hold_changed;
  bool created; /* allocated by this construct */
  bool remove;  /* both counts reached 0: remove after the copies */
};

/* Most constructs map a few objects: their lists live in the construct
 * (no allocation per construct); longer ones move to the heap. */
#define INLINE_ITEMS 4
#define INLINE_TOUCHED 8

struct item_list {
  struct map_item *items; /* inline_items, or the heap */
  size_t num, cap;
  struct map_item inline_items[INLINE_ITEMS];
  struct map_components *expanded; /* one per mapper call, freed at the end */
  size_t num_expanded;
};

/* One construct's map list and the bookkeeping of its current pass (begin,
 * end or update; a target region runs begin, then end or undo, on one). */
struct maps_construct {
  struct device *dev;
  const char *what; /* "mapping on entry"... for messages: the pass, in
                     * any construct (target, target data, enter data) */
  struct async_record *rec; /* NULL: synchronous */
  bool copies_back;         /* false while undoing a failed region */
  bool exiting;             /* an end pass: partly present items are skipped */
  bool launch_checked;      /* check_before_launch saw the touched entries */
  struct item_list items;
  struct touched *touched;  /* what the current pass changed: inline_touched,
                             * or the heap */
  size_t num_touched, cap_touched;
  struct touched inline_touched[INLINE_TOUCHED];
};

/* ------------------------------------------------------------- names */

static const char *item_name(const struct map_item *it, char *buf, size_t len) {
  map_name_from_raw(it->name, buf, len);
  if (!buf[0])
    snprintf(buf, len, "unknown");
  return buf;
}

static void format_count(uint64_t n, char *buf, size_t len) {
  if (n == MAPPING_REFCOUNT_INFINITE)
    snprintf(buf, len, "INF");
  else
    snprintf(buf, len, "%" PRIu64, n);
}

/* One reference-count event of entry e (trace.h: the JSON trace and the
 * LIBOMPTARGET_INFO=0x80 text line share it). */
static void count_event_noted(const struct mapping_entry *e,
                              enum trace_count which, enum trace_change change,
                              uint64_t before, enum trace_copy_note note) {
  trace_refcount(change, which, e->hst_begin, before,
                 which == TRACE_HOLD ? e->hold_refcount : e->dyn_refcount,
                 e->name, note);
}

static void count_event(const struct mapping_entry *e, enum trace_count which,
                        enum trace_change change, uint64_t before) {
  count_event_noted(e, which, change, before, TRACE_NOTE_NONE);
}

/* ------------------------------------------------- per-construct state */

static struct touched *find_touched(struct maps_construct *c,
                                    struct mapping_entry *e) {
  /* Newest first: members follow their parent, so this usually stops at
   * once. Constructs are small; a mapper over a large array is the worst
   * case (quadratic in its components). */
  for (size_t i = c->num_touched; i-- > 0;)
    if (c->touched[i].entry == e)
      return &c->touched[i];
  return NULL;
}

/* The record of entry e in this construct, created on first use. */
static struct touched *touch(struct maps_construct *c,
                             struct mapping_entry *e) {
  struct touched *t = find_touched(c, e);
  if (t)
    return t;
  if (ARRAY_RESERVE_INLINE(c->touched, c->cap_touched, c->num_touched + 1,
                           c->inline_touched, c->num_touched) != 0) {
    report_error_set("%s: out of host memory tracking the construct's "
                     "mappings",
                     c->what);
    return NULL;
  }
  t = &c->touched[c->num_touched++];
  memset(t, 0, sizeof *t);
  t->entry = e;
  return t;
}

static bool created_here(struct maps_construct *c, struct mapping_entry *e) {
  struct touched *t = find_touched(c, e);
  return t && t->created;
}

/* --------------------------------------------------------- transfers */

static bool shadow_in_range(const struct shadow_ptr *s, uintptr_t begin,
                            uintptr_t end) {
  return s->hst_ptr_addr < end && s->hst_ptr_addr + sizeof(void *) > begin;
}

/* Copy host [hst, hst+size) of entry e to the device, then re-point the
 * device copies of any attached pointers the copy overwrote. */
static int copy_to_device(struct maps_construct *c, struct mapping_entry *e,
                          uintptr_t hst, int64_t size) {
  if (size <= 0)
    return 0;
  void *tgt = (void *)(e->tgt_begin + (hst - e->hst_begin));
  if (c->rec && async_pin_entry(c->rec, e) != 0)
    return -1;
  if ((c->rec ? async_submit(c->rec, tgt, (void *)hst, size, e->name)
              : device_submit_named(c->dev, tgt, (void *)hst, size,
                                    e->name)) != 0) {
    report_error_set("%s: copying %s to the device failed", c->what,
                     e->name[0] ? e->name : "unknown");
    return -1;
  }
  for (struct shadow_ptr *s = e->shadows; s; s = s->next) {
    if (!shadow_in_range(s, hst, hst + (uintptr_t)size))
      continue;
    void *tgt_ptr = (void *)s->tgt_ptr_addr, *shown = (void *)s->hst_ptr_addr;
    if ((c->rec ? async_submit_pointer(c->rec, tgt_ptr, &s->tgt_ptr_value,
                                       shown, e->name)
                : device_submit_pointer(c->dev, tgt_ptr, &s->tgt_ptr_value,
                                        shown, e->name)) != 0) {
      report_error_set("%s: re-pointing the device copy of pointer host "
                       "0x%" PRIxPTR " failed",
                       c->what, s->hst_ptr_addr);
      return -1;
    }
  }
  if (stale_check_on() && !c->rec)
    stale_synced(e, hst, size, true);
  return 0;
}

/* Copy device data of host [hst, hst+size) back, then restore the host
 * values of attached pointers (the device holds device addresses there). */
static int copy_from_device(struct maps_construct *c, struct mapping_entry *e,
                            uintptr_t hst, int64_t size) {
  if (size <= 0)
    return 0;
  void *tgt = (void *)(e->tgt_begin + (hst - e->hst_begin));
  if (c->rec) {
    /* The copy lands later: restore the pointers then, and keep others off
     * the entry until it has. */
    if (stale_check_on())
      stale_copy_back_queued(e, hst, size);
    if (async_retrieve(c->rec, (void *)hst, tgt, size, e->name) != 0 ||
        async_defer_entry(c->rec, e, false) != 0) {
      report_error_set("%s: queueing the copy of %s back from the device "
                       "failed",
                       c->what, e->name[0] ? e->name : "unknown");
      return -1;
    }
    for (struct shadow_ptr *s = e->shadows; s; s = s->next)
      if (shadow_in_range(s, hst, hst + (uintptr_t)size) &&
          async_defer_restore(c->rec, s->hst_ptr_addr, s->hst_ptr_value) != 0)
        return -1;
    return 0;
  }
  if (stale_check_on())
    stale_before_copy_back(c->dev, e, hst, size);
  if (device_retrieve_named(c->dev, (void *)hst, tgt, size, e->name) != 0) {
    report_error_set("%s: copying %s back from the device failed", c->what,
                     e->name[0] ? e->name : "unknown");
    return -1;
  }
  for (struct shadow_ptr *s = e->shadows; s; s = s->next)
    if (shadow_in_range(s, hst, hst + (uintptr_t)size))
      memcpy((void *)s->hst_ptr_addr, &s->hst_ptr_value, sizeof(void *));
  if (stale_check_on())
    stale_synced(e, hst, size, false);
  return 0;
}

/* The part of [*begin, *begin+size) that lies in entry e, as a new begin
 * and size (an implicit map that extends an entry on either side moves only
 * the part inside it). */
static int64_t clip_to_entry(const struct mapping_entry *e, uintptr_t *begin,
                             int64_t size) {
  uintptr_t lo = *begin, hi = *begin + (uintptr_t)size;
  if (lo < e->hst_begin)
    lo = e->hst_begin;
  if (hi > e->hst_end)
    hi = e->hst_end;
  *begin = lo;
  return hi > lo ? (int64_t)(hi - lo) : 0;
}

/* ------------------------------------------------------------ lookups */

enum find_result { FIND_OK = 0, FIND_ABSENT, FIND_PARTIAL, FIND_ERROR };

/*
 * Find the entry for [begin, begin+size) under LLVM 19's extension rules: an
 * implicit map that overlaps an entry on either side uses that entry (the
 * array used in a region while a section of it is mapped); an explicit one
 * is an error naming both ranges at entry, and is skipped at exit
 * (FIND_PARTIAL: nothing released, nothing copied). A zero-size lookup also
 * finds an entry through its section's base pointer (mapping.h).
 */
static enum find_result find_for_map(struct maps_construct *c,
                                     const struct map_item *it,
                                     struct mapping_entry **out) {
  struct mapping_entry *e = NULL;
  uintptr_t begin = (uintptr_t)it->begin;
  enum mapping_overlap ov =
      mapping_lookup(&c->dev->map, begin, (uint64_t)it->size, &e);
  if (ov == MAPPING_ABSENT && it->size == 0) {
    e = mapping_find_zero_size(&c->dev->map, begin);
    ov = e ? MAPPING_CONTAINED : MAPPING_ABSENT;
  }
  *out = e;
  if (ov == MAPPING_CONTAINED)
    return FIND_OK;
  if (ov == MAPPING_ABSENT)
    return FIND_ABSENT;
  char name[96];
  item_name(it, name, sizeof name);
  bool implicit = (it->type & OMP_TGT_MAPTYPE_IMPLICIT) != 0;
  if (implicit) {
    trace_lookup("implicit_extends", begin, it->size);
    report_info(INFO_MAPPING_EXISTS,
                "Implicit map of %s host 0x%" PRIxPTR " [0:%" PRId64
                "] overlaps mapped host 0x%" PRIxPTR " [0:%" PRIuPTR
                "]: using the existing mapping",
                name, begin, it->size, e->hst_begin, e->hst_end - e->hst_begin);
    return FIND_OK;
  }
  trace_lookup(c->exiting ? "partial_skipped" : "extends", begin, it->size);
  if (c->exiting)
    return FIND_PARTIAL;
  report_error_set("%s: %s extension of a mapped object: new map of %s host "
                   "0x%" PRIxPTR " [0:%" PRId64 "] extends mapped %s host "
                   "0x%" PRIxPTR " [0:%" PRIuPTR "] (device 0x%" PRIxPTR ")",
                   c->what, implicit ? "implicit" : "explicit", name, begin,
                   it->size, e->name[0] ? e->name : "unknown", e->hst_begin,
                   e->hst_end - e->hst_begin, e->tgt_begin);
  return FIND_ERROR;
}

/* Whether `present` on an item that names nothing mapped is an error. Under
 * unified_shared_memory every host object is present (LLVM 13-19 accept the
 * item and use the host object), unless `close` asks for a copy of the
 * device's own. */
static bool absent_present_refused(const struct maps_construct *c,
                                   const struct map_item *it) {
  if (!(it->type & OMP_TGT_MAPTYPE_PRESENT))
    return false;
  return !c->dev->unified_memory || (it->type & OMP_TGT_MAPTYPE_CLOSE);
}

static int report_absent_present(struct maps_construct *c,
                                 const struct map_item *it) {
  char name[96];
  trace_lookup("absent_present", (uintptr_t)it->begin, it->size);
  report_error_set("%s: map(present) of an absent object: %s host 0x%" PRIxPTR
                   "[0:%" PRId64 "]",
                   c->what, item_name(it, name, sizeof name),
                   (uintptr_t)it->begin, it->size);
  return -1;
}

/* ------------------------------------------------------ shadow pointers */

/*
 * Make the device copy of the host pointer at `ptr_addr` (inside entry `pe`)
 * hold `value`, and remember the host value so copies restore it.
 */
static int attach_pointer(struct maps_construct *c, struct mapping_entry *pe,
                          uintptr_t ptr_addr, uintptr_t value, bool force) {
  uintptr_t host_value;
  memcpy(&host_value, (void *)ptr_addr, sizeof host_value);
  uintptr_t tgt_addr = pe->tgt_begin + (ptr_addr - pe->hst_begin);
  struct shadow_ptr *s = pe->shadows;
  while (s && s->hst_ptr_addr != ptr_addr)
    s = s->next;
  if (!force && s && s->tgt_ptr_value == value &&
      s->hst_ptr_value == host_value)
    return 0; /* already attached to this pointee */
  bool fresh = false;
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s) {
      report_error_set("%s: out of host memory for the shadow of pointer "
                       "host 0x%" PRIxPTR,
                       c->what, ptr_addr);
      return -1;
    }
    fresh = true;
  }
  struct shadow_ptr old = *s;
  s->hst_ptr_addr = ptr_addr;
  s->hst_ptr_value = host_value;
  s->tgt_ptr_addr = tgt_addr;
  s->tgt_ptr_value = value;
  /* The copy line that follows shows the pointer's host address but sends
   * a device address: say what it is. */
  report_info(INFO_DATA_TRANSFER,
              "Attaching pointer at host 0x%" PRIxPTR " (in %s): its device "
              "copy 0x%" PRIxPTR " gets 0x%" PRIxPTR
              ", the device address of host 0x%" PRIxPTR,
              ptr_addr, pe->name[0] ? pe->name : "unknown", tgt_addr, value,
              host_value);
  if (device_submit_pointer(c->dev, (void *)tgt_addr, &s->tgt_ptr_value,
                            (void *)ptr_addr, pe->name) != 0) {
    report_error_set("%s: writing device pointer 0x%" PRIxPTR
                     " into the device copy (0x%" PRIxPTR
                     ") of host pointer 0x%" PRIxPTR " failed",
                     c->what, value, tgt_addr, ptr_addr);
    if (fresh)
      free(s);
    else
      *s = old;
    return -1;
  }
  if (fresh) {
    s->next = pe->shadows;
    pe->shadows = s;
  }
  trace_attach(ptr_addr, host_value, value);
  report_debug("attached host pointer 0x%" PRIxPTR " (value 0x%" PRIxPTR
               "): device copy 0x%" PRIxPTR " = 0x%" PRIxPTR,
               ptr_addr, host_value, tgt_addr, value);
  return 0;
}

/* Device address that the host pointer value `host_value` corresponds to,
 * given that `pointee_begin` (inside `te`) is what it points into. */
static uintptr_t translate_pointer(const struct mapping_entry *te,
                                   uintptr_t pointee_begin,
                                   uintptr_t host_value) {
  uintptr_t tgt_pointee = te->tgt_begin + (pointee_begin - te->hst_begin);
  return tgt_pointee - (pointee_begin - host_value);
}

/* ------------------------------------------------------------ begin */

/* Count one more reference (at most once per construct and count). */
static int add_reference(struct maps_construct *c, struct mapping_entry *e,
                         bool hold, enum trace_copy_note note) {
  struct touched *t = touch(c, e);
  if (!t)
    return -1;
  /* An infinite dynamic count (declare target, omp_target_associate_ptr)
   * still counts ompx_hold references: omp_target_disassociate_ptr must
   * fail while they are held. */
  enum trace_count which = hold ? TRACE_HOLD : TRACE_DYNAMIC;
  uint64_t before = hold ? e->hold_refcount : e->dyn_refcount;
  if (hold && !t->hold_changed) {
    e->hold_refcount++;
    t->hold_changed = true;
    count_event_noted(e, which, TRACE_INCREMENTED, before, note);
  } else if (!hold && !t->dyn_changed &&
             e->dyn_refcount != MAPPING_REFCOUNT_INFINITE) {
    e->dyn_refcount++;
    t->dyn_changed = true;
    count_event_noted(e, which, TRACE_INCREMENTED, before, note);
  } else {
    count_event_noted(e, which, TRACE_SUPPRESSED, before, note);
  }
  return 0;
}

/* Allocate and insert a new entry for host [begin, begin+size). `close`
 * asks for memory of the device's own even under unified_shared_memory,
 * where a plugin may otherwise use the host object itself. */
static struct mapping_entry *create_entry(struct maps_construct *c,
                                          uintptr_t begin, int64_t size,
                                          uintptr_t base, const char *name,
                                          bool hold, bool close) {
  void *tgt = device_alloc(c->dev, size, close ? NULL : (void *)begin,
                           TARGET_ALLOC_DEFAULT);
  if (!tgt) {
    report_error_set("%s: cannot allocate device memory for %s host "
                     "0x%" PRIxPTR " [0:%" PRId64 "]",
                     c->what, name, begin, size);
    return NULL;
  }
  struct mapping_entry *e = mapping_insert(
      &c->dev->map, begin, begin + (uintptr_t)size, (uintptr_t)tgt, name);
  if (!e)
    goto out_free_device;
  e->owned = true;
  e->hst_base = base <= begin ? base : begin;
  struct touched *t = touch(c, e);
  if (!t)
    goto out_remove_entry;
  t->created = true;
  if (hold) {
    e->hold_refcount = 1;
    t->hold_changed = true;
  } else {
    e->dyn_refcount = 1;
    t->dyn_changed = true;
  }
  trace_entry("created", e->hst_begin, e->hst_end, e->tgt_begin,
              e->dyn_refcount, e->hold_refcount, name);
  count_event(e, hold ? TRACE_HOLD : TRACE_DYNAMIC, TRACE_INCREMENTED, 0);
  report_info(INFO_MAPPING_CHANGED,
              "Creating new map entry with HstPtrBase=0x%" PRIxPTR
              ", HstPtrBegin=0x%" PRIxPTR ", TgtPtrBegin=%p, Size=%" PRId64
              ", DynRefCount=%" PRIu64 ", HoldRefCount=%" PRIu64 ", Name=%s",
              base, begin, tgt, size, e->dyn_refcount, e->hold_refcount, name);
  if (stale_check_on() && !c->rec)
    stale_entry_created(c->dev, e);
  return e;

out_remove_entry:
  mapping_entry_remove(c->dev, e); /* frees tgt: nothing pins a new entry */
  return NULL;
out_free_device:
  device_delete(c->dev, tgt);
  return NULL;
}

/* clang 13-16 map a variable used inside a use_device_addr region with its
 * device address as the host address, and clang 16 maps a has_device_addr
 * item (TO|TARGET_PARAM, 8 bytes) at its device address. Copying from it on
 * the host would read device memory: an address inside a device copy or an
 * omp_target_alloc block is used as is, nothing is mapped or copied (the
 * region already works on that memory). */
static bool device_resident(struct device *dev, const struct map_item *it) {
  struct mapping_entry *d = mapping_find_device(&dev->map, (uintptr_t)it->begin);
  char name[96];
  struct memory_block blk;
  if (!d && memory_blocks_find(dev->id, true, (uintptr_t)it->begin, &blk)) {
    report_info(INFO_EMPTY_MAPPING,
                "map of %s: 0x%" PRIxPTR " is a device address inside the "
                "omp_target_alloc block 0x%" PRIxPTR " [0:%" PRIuPTR "] of "
                "device %d (as has_device_addr passes it): used as is, "
                "nothing mapped",
                item_name(it, name, sizeof name), (uintptr_t)it->begin,
                blk.begin, blk.end - blk.begin, dev->id);
    return true;
  }
  if (!d)
    return false;
  report_info(INFO_EMPTY_MAPPING,
              "map of %s: 0x%" PRIxPTR " is a device address inside the "
              "device copy of %s (host 0x%" PRIxPTR " [0:%" PRIuPTR "]), as "
              "inside a use_device_addr region: used as is, nothing mapped",
              item_name(it, name, sizeof name), (uintptr_t)it->begin,
              d->name[0] ? d->name : "unknown", d->hst_begin,
              d->hst_end - d->hst_begin);
  return true;
}

/* The base pointer of item it's section: the pointer's host value for a
 * PTR_AND_OBJ (base is where that pointer lives), else base. */
static uintptr_t section_base(const struct map_item *it) {
  uintptr_t base = (uintptr_t)it->base;
  if ((it->type & OMP_TGT_MAPTYPE_PTR_AND_OBJ) && base)
    memcpy(&base, it->base, sizeof base);
  return base;
}

/* Tells the plugin which variable the new device copy of `e` holds, how
 * it was mapped and where (a check on the device side names it): with no
 * `to`, nothing copies the host's bytes there. */
static void name_device_copy(struct maps_construct *c,
                             const struct mapping_entry *e,
                             const struct map_item *it, const char *name) {
  if (c->dev->plugin->ops.name_range == NULL ||
      atomic_load(&c->dev->names_unused))
    return;
  const char *construct;
  const ident_t *loc;
  char where[160], text[400], unnamed[96];
  trace_current_construct(&construct, &loc);
  if (strcmp(name, "unknown") == 0) { /* clang passes names with -g only */
    snprintf(unnamed, sizeof unnamed,
             "host 0x%" PRIxPTR " (no names: compile with -g)", e->hst_begin);
    name = unnamed;
  }
  static const char *const motions[] = {"alloc", "to", "from", "tofrom"};
  const char *types =
      motions[it->type & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)];
  snprintf(text, sizeof text, "%s\nmap(%s) at %s%s%s%s%s", name, types,
           report_location(loc, where, sizeof where),
           construct ? " by `" : "", construct ? construct : "",
           construct ? "`" : "",
           it->type & OMP_TGT_MAPTYPE_TO ? ""
                                         : ", which copies nothing to it");
  device_name_range(c->dev, (void *)e->tgt_begin,
                    (int64_t)(e->hst_end - e->hst_begin), text);
}

/*
 * Map the object [begin, begin+size) of item `it` (the pointee of a
 * PTR_AND_OBJ): find or create its entry, count the reference, copy TO.
 * *out is NULL when a zero-size item names nothing mapped.
 */
static int map_object(struct maps_construct *c, const struct map_item *it,
                      struct mapping_entry **out) {
  char name[96];
  item_name(it, name, sizeof name);
  uintptr_t begin = (uintptr_t)it->begin;
  bool hold = (it->type & OMP_TGT_MAPTYPE_OMPX_HOLD) != 0;
  struct mapping_entry *e = NULL;
  *out = NULL;
  switch (find_for_map(c, it, &e)) {
  case FIND_PARTIAL: /* only at exit */
  case FIND_ERROR:
    return -1;
  case FIND_ABSENT:
    if (absent_present_refused(c, it))
      return report_absent_present(c, it);
    if (device_resident(c->dev, it))
      return 0;
    if (it->size == 0) {
      report_info(INFO_EMPTY_MAPPING,
                  "zero-size map of %s host 0x%" PRIxPTR
                  " names no mapped object: nothing mapped, the host value "
                  "is kept",
                  name, begin);
      return 0;
    }
    e = create_entry(c, begin, it->size, section_base(it), name, hold,
                     (it->type & OMP_TGT_MAPTYPE_CLOSE) != 0);
    if (!e)
      return -1;
    name_device_copy(c, e, it, name);
    break;
  case FIND_OK:
    trace_entry("reused", e->hst_begin, e->hst_end, e->tgt_begin,
                e->dyn_refcount, e->hold_refcount, e->name);
    /* A `to` without `always` on a present object copies nothing. */
    if (add_reference(c, e, hold,
                      (it->type & OMP_TGT_MAPTYPE_TO) &&
                              !(it->type & OMP_TGT_MAPTYPE_ALWAYS) &&
                              !created_here(c, e)
                          ? TRACE_NOTE_TO_SKIPPED
                          : TRACE_NOTE_NONE) != 0)
      return -1;
    if (REPORT_INFO_ON(INFO_MAPPING_EXISTS)) {
      char dyn[24], hc[24];
      format_count(e->dyn_refcount, dyn, sizeof dyn);
      format_count(e->hold_refcount, hc, sizeof hc);
      report_info(INFO_MAPPING_EXISTS,
                  "Mapping exists%s with HstPtrBegin=0x%" PRIxPTR
                  ", TgtPtrBegin=0x%" PRIxPTR ", Size=%" PRId64
                  ", DynRefCount=%s, HoldRefCount=%s, Name=%s",
                  (it->type & OMP_TGT_MAPTYPE_IMPLICIT) ? " (implicit)" : "",
                  begin, e->tgt_begin + (begin - e->hst_begin), it->size, dyn,
                  hc, name);
    }
    break;
  }
  *out = e;
  bool to = (it->type & OMP_TGT_MAPTYPE_TO) != 0;
  bool always = (it->type & OMP_TGT_MAPTYPE_ALWAYS) != 0;
  if (to && (always || created_here(c, e))) {
    int64_t size = clip_to_entry(e, &begin, it->size);
    return copy_to_device(c, e, begin, size);
  }
  return 0;
}

/* PTR_AND_OBJ: after the pointee, attach the device copy of the pointer at
 * `base`, mapping its 8 bytes implicitly when nothing holds them. */
static int map_pointer_storage(struct maps_construct *c,
                               const struct map_item *it,
                               struct mapping_entry *pointee) {
  uintptr_t ptr_addr = (uintptr_t)it->base;
  bool hold = (it->type & OMP_TGT_MAPTYPE_OMPX_HOLD) != 0;
  char name[96];
  item_name(it, name, sizeof name);
  struct mapping_entry *pe = NULL;
  switch (mapping_lookup(&c->dev->map, ptr_addr, PTR_SIZE, &pe)) {
  case MAPPING_CONTAINED:
    if (add_reference(c, pe, hold, TRACE_NOTE_NONE) != 0)
      return -1;
    break;
  case MAPPING_ABSENT:
    pe = create_entry(c, ptr_addr, PTR_SIZE, ptr_addr, name, hold,
                      (it->type & OMP_TGT_MAPTYPE_CLOSE) != 0);
    if (!pe)
      return -1;
    break;
  case MAPPING_EXTENDS:
    report_error_set(
        "%s: the pointer of %s at host 0x%" PRIxPTR
        " straddles the end of mapped host 0x%" PRIxPTR " [0:%" PRIuPTR "]",
        c->what, name, ptr_addr, pe->hst_begin, pe->hst_end - pe->hst_begin);
    return -1;
  }
  if (!pointee) {
    report_info(INFO_EMPTY_MAPPING,
                "pointer of %s at host 0x%" PRIxPTR
                " points to nothing mapped; its device copy is left as is",
                name, ptr_addr);
    return 0;
  }
  uintptr_t host_value;
  memcpy(&host_value, (void *)ptr_addr, sizeof host_value);
  return attach_pointer(
      c, pe, ptr_addr,
      translate_pointer(pointee, (uintptr_t)it->begin, host_value),
      (it->type & OMP_TGT_MAPTYPE_ALWAYS) != 0);
}

/* RETURN_PARAM: hand the device address back through args_base[i]. */
static void return_device_address(struct maps_construct *c,
                                  const struct map_item *it) {
  if (!it->return_slot)
    return;
  uintptr_t begin = (uintptr_t)it->begin;
  struct mapping_entry *e = mapping_find_zero_size(&c->dev->map, begin);
  char name[96];
  item_name(it, name, sizeof name);
  if (!e && (it->type & OMP_TGT_MAPTYPE_FB_NULLIFY)) {
    report_info(INFO_EMPTY_MAPPING,
                "use_device_ptr(fb_nullify) of %s host 0x%" PRIxPTR
                " is not mapped: it becomes NULL",
                name, begin);
    *it->return_slot = NULL;
    return;
  }
  if (!e) {
    report_info(INFO_EMPTY_MAPPING,
                "use_device_ptr/addr of %s host 0x%" PRIxPTR
                " is not mapped: the host address is kept (OpenMP 5.1)",
                name, begin);
    return;
  }
  uintptr_t tgt = translate_pointer(e, begin, (uintptr_t)it->base);
  *it->return_slot = (void *)tgt;
}

/* ATTACH (clang 22), after all other entries of the construct. */
static int attach_deferred(struct maps_construct *c,
                           const struct map_item *it) {
  char name[96];
  item_name(it, name, sizeof name);
  uintptr_t ptr_addr = (uintptr_t)it->base;
  uintptr_t pointee_begin = (uintptr_t)it->begin;
  struct mapping_entry *pe = NULL, *te = NULL;
  bool ptr_mapped = mapping_lookup(&c->dev->map, ptr_addr, PTR_SIZE, &pe) ==
                    MAPPING_CONTAINED;
  bool pointee_mapped =
      mapping_lookup(&c->dev->map, pointee_begin, 0, &te) == MAPPING_CONTAINED;
  if (!ptr_mapped || !pointee_mapped) {
    /* OpenMP 5.1 attaches only a pointer that is itself on the device (a
     * pointer used in the region is passed by value instead). */
    report_info(INFO_EMPTY_MAPPING,
                "attach of %s: %s: nothing attached (pointer at host "
                "0x%" PRIxPTR ", pointee at host 0x%" PRIxPTR ")",
                name,
                !ptr_mapped && !pointee_mapped
                    ? "neither the pointer nor its pointee is mapped"
                : !ptr_mapped ? "the pointer itself is not mapped"
                              : "its pointee is not mapped",
                ptr_addr, pointee_begin);
    return 0;
  }
  bool always = (it->type & OMP_TGT_MAPTYPE_ALWAYS) != 0;
  if (!always && !created_here(c, pe) && !created_here(c, te))
    return 0; /* both existed before: already attached then */
  uintptr_t host_value;
  memcpy(&host_value, (void *)ptr_addr, sizeof host_value);
  return attach_pointer(c, pe, ptr_addr,
                        translate_pointer(te, pointee_begin, host_value),
                        always);
}

static bool not_mapped_at_all(int64_t type) {
  return (type & (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE)) != 0;
}

static bool pure_return_param(const struct map_item *it) {
  return (it->type & OMP_TGT_MAPTYPE_RETURN_PARAM) && it->size == 0 &&
         !(it->type & DATA_BITS);
}

static int begin_one(struct maps_construct *c, const struct map_item *it) {
  LOCK_ASSERT_HELD(&c->dev->map.lock);
  if (not_mapped_at_all(it->type)) {
    if ((it->type & OMP_TGT_MAPTYPE_PRIVATE) &&
        (it->type & OMP_TGT_MAPTYPE_ATTACH))
      report_debug("%s: entry %d is PRIVATE|ATTACH: the corresponding "
                   "pointer is initialised at launch",
                   c->what, it->index);
    return 0;
  }
  if (it->type & OMP_TGT_MAPTYPE_ATTACH)
    return 0; /* second pass */
  if (pure_return_param(it)) {
    return_device_address(c, it);
    return 0;
  }
  struct mapping_entry *e = NULL;
  if (map_object(c, it, &e) != 0)
    return -1;
  if ((it->type & OMP_TGT_MAPTYPE_PTR_AND_OBJ) &&
      map_pointer_storage(c, it, e) != 0)
    return -1;
  if (it->type & OMP_TGT_MAPTYPE_RETURN_PARAM)
    return_device_address(c, it);
  return 0;
}

/* Undo a failed begin: drop the references it added, free what it created. */
static void rollback_begin(struct maps_construct *c) {
  for (size_t i = c->num_touched; i-- > 0;) {
    struct touched *t = &c->touched[i];
    struct mapping_entry *e = t->entry;
    if (t->created) {
      mapping_entry_remove(c->dev, e);
      continue;
    }
    if (t->dyn_changed && e->dyn_refcount > 0 &&
        e->dyn_refcount != MAPPING_REFCOUNT_INFINITE)
      e->dyn_refcount--;
    if (t->hold_changed && e->hold_refcount > 0)
      e->hold_refcount--;
  }
}

/* ------------------------------------------------------------- end */

/* Drop one reference (at most once per construct and count; DELETE forces
 * the dynamic count to 0) and mark the entry for removal at zero. */
static int drop_reference(struct maps_construct *c, struct mapping_entry *e,
                          int64_t type) {
  struct touched *t = touch(c, e);
  if (!t)
    return -1;
  bool hold = (type & OMP_TGT_MAPTYPE_OMPX_HOLD) != 0;
  enum trace_count which = hold ? TRACE_HOLD : TRACE_DYNAMIC;
  uint64_t before = hold ? e->hold_refcount : e->dyn_refcount;
  if (e->dyn_refcount == MAPPING_REFCOUNT_INFINITE) {
    bool drop = hold && !t->hold_changed && e->hold_refcount > 0;
    if (drop)
      e->hold_refcount--;
    t->hold_changed = t->hold_changed || hold;
    count_event(e, which, drop ? TRACE_DECREMENTED : TRACE_SUPPRESSED, before);
    return 0;
  }
  enum trace_change change = TRACE_SUPPRESSED;
  if (type & OMP_TGT_MAPTYPE_DELETE) {
    which = TRACE_DYNAMIC;
    before = e->dyn_refcount;
    e->dyn_refcount = 0;
    t->dyn_changed = true;
    change = TRACE_RESET;
  } else if (hold) {
    if (!t->hold_changed && e->hold_refcount > 0) {
      e->hold_refcount--;
      change = TRACE_DECREMENTED;
    }
    t->hold_changed = true;
  } else {
    if (!t->dyn_changed && e->dyn_refcount > 0) {
      e->dyn_refcount--;
      change = TRACE_DECREMENTED;
    }
    t->dyn_changed = true;
  }
  bool last = e->dyn_refcount == 0 && e->hold_refcount == 0;
  bool from = c->copies_back && (type & OMP_TGT_MAPTYPE_FROM);
  bool forced = type & (OMP_TGT_MAPTYPE_ALWAYS | OMP_TGT_MAPTYPE_DELETE);
  enum trace_copy_note note = TRACE_NOTE_NONE;
  if (last && !t->remove)
    note = from ? TRACE_NOTE_LAST_FROM : TRACE_NOTE_LAST;
  else if (!last && from && !forced && change == TRACE_DECREMENTED)
    note = TRACE_NOTE_FROM_SKIPPED;
  count_event_noted(e, which, change, before, note);
  if (note == TRACE_NOTE_FROM_SKIPPED && stale_check_on() && !c->rec)
    stale_from_skipped(c->dev, e, e->hst_begin,
                       (int64_t)(e->hst_end - e->hst_begin));
  if (last)
    t->remove = true;
  return 0;
}

static bool marked_for_removal(struct maps_construct *c,
                               struct mapping_entry *e) {
  struct touched *t = find_touched(c, e);
  return t && t->remove;
}

static int end_one(struct maps_construct *c, const struct map_item *it) {
  LOCK_ASSERT_HELD(&c->dev->map.lock);
  if (not_mapped_at_all(it->type) || (it->type & OMP_TGT_MAPTYPE_ATTACH) ||
      pure_return_param(it))
    return 0;
  char name[96];
  item_name(it, name, sizeof name);
  uintptr_t begin = (uintptr_t)it->begin;
  struct mapping_entry *e = NULL;
  switch (find_for_map(c, it, &e)) {
  case FIND_ERROR:
    return -1;
  case FIND_ABSENT:
    if (absent_present_refused(c, it))
      return report_absent_present(c, it);
    report_info(INFO_EMPTY_MAPPING,
                "%s: %s host 0x%" PRIxPTR " [0:%" PRId64
                "] is not mapped: nothing to release",
                c->what, name, begin, it->size);
    return 0;
  case FIND_PARTIAL:
    if (it->type & OMP_TGT_MAPTYPE_PRESENT) {
      report_error_set("%s: map(present) of a partly present object: %s "
                       "host 0x%" PRIxPTR " [0:%" PRId64 "] is only partly "
                       "inside mapped %s host 0x%" PRIxPTR " [0:%" PRIuPTR "]",
                       c->what, name, begin, it->size,
                       e->name[0] ? e->name : "unknown", e->hst_begin,
                       e->hst_end - e->hst_begin);
      return -1;
    }
    /* LLVM 19 skips it: the mapping it overlaps stays until its own end. */
    report_info(INFO_EMPTY_MAPPING,
                "%s: %s host 0x%" PRIxPTR " [0:%" PRId64
                "] is only partly inside mapped host 0x%" PRIxPTR
                " [0:%" PRIuPTR "]: skipped, nothing released or copied",
                c->what, name, begin, it->size, e->hst_begin,
                e->hst_end - e->hst_begin);
    return 0;
  case FIND_OK:
    break;
  }
  if (drop_reference(c, e, it->type) != 0)
    return -1;
  bool from = c->copies_back && (it->type & OMP_TGT_MAPTYPE_FROM);
  bool forced = (it->type & (OMP_TGT_MAPTYPE_ALWAYS | OMP_TGT_MAPTYPE_DELETE));
  if (from && (forced || marked_for_removal(c, e))) {
    int64_t size = clip_to_entry(e, &begin, it->size);
    if (copy_from_device(c, e, begin, size) != 0)
      return -1;
  }
  if (it->type & OMP_TGT_MAPTYPE_PTR_AND_OBJ) {
    struct mapping_entry *pe = NULL;
    if (mapping_lookup(&c->dev->map, (uintptr_t)it->base, PTR_SIZE, &pe) ==
            MAPPING_CONTAINED &&
        drop_reference(c, pe, it->type & ~OMP_TGT_MAPTYPE_DELETE) != 0)
      return -1;
  }
  return 0;
}

/* Remove the entries whose counts reached 0, after all copies. */
static int remove_released(struct maps_construct *c) {
  int rc = 0;
  for (size_t i = 0; i < c->num_touched; i++) {
    struct touched *t = &c->touched[i];
    if (!t->remove)
      continue;
    struct mapping_entry *e = t->entry;
    if (c->rec) {
      /* Removed when the queued copies have landed (async.c). */
      count_event(e, TRACE_DYNAMIC, TRACE_DEFERRED_DELETE, e->dyn_refcount);
      if (async_defer_entry(c->rec, e, true) != 0)
        rc = -1;
      continue;
    }
    trace_entry("removed", e->hst_begin, e->hst_end, e->tgt_begin,
                e->dyn_refcount, e->hold_refcount, e->name);
    report_info(INFO_MAPPING_CHANGED,
                "Removing map entry with HstPtrBegin=0x%" PRIxPTR
                ", TgtPtrBegin=0x%" PRIxPTR ", Size=%" PRIuPTR ", Name=%s",
                e->hst_begin, e->tgt_begin, e->hst_end - e->hst_begin,
                e->name[0] ? e->name : "unknown");
    t->entry = NULL;
    if (stale_check_on() && c->copies_back)
      stale_released(c->dev, e);
    if (mapping_entry_remove(c->dev, e) != 0) {
      report_error_set("%s: freeing the device memory of a removed mapping "
                       "failed",
                       c->what);
      rc = -1;
    }
  }
  return rc;
}

/* ----------------------------------------------------------- update */

static int update_range(struct maps_construct *c, const struct map_item *it,
                        uintptr_t begin, int64_t size) {
  char name[96];
  item_name(it, name, sizeof name);
  struct mapping_entry *e = NULL;
  enum mapping_overlap ov =
      mapping_lookup(&c->dev->map, begin, (uint64_t)size, &e);
  if (ov != MAPPING_CONTAINED) {
    if (it->type & OMP_TGT_MAPTYPE_PRESENT) {
      report_error_set("%s: update of %s host 0x%" PRIxPTR " [0:%" PRId64
                       "] with present: %s",
                       c->what, name, begin, size,
                       ov == MAPPING_ABSENT ? "the object is not mapped"
                                            : "the range is only partly "
                                              "mapped");
      return -1;
    }
    report_info(INFO_EMPTY_MAPPING,
                "%s: %s host 0x%" PRIxPTR " [0:%" PRId64
                "] is %s: nothing updated",
                c->what, name, begin, size,
                ov == MAPPING_ABSENT ? "not mapped" : "only partly mapped");
    return 0;
  }
  if ((it->type & OMP_TGT_MAPTYPE_FROM) &&
      copy_from_device(c, e, begin, size) != 0)
    return -1;
  if ((it->type & OMP_TGT_MAPTYPE_TO) && copy_to_device(c, e, begin, size) != 0)
    return -1;
  return 0;
}

/* Walk the non-contiguous descriptor: dimension `dim` selects
 * dims[dim].count slices, the first at dims[dim].offset units (units[dim]
 * bytes each), one every dims[dim].stride bytes. */
static int update_non_contig(struct maps_construct *c,
                             const struct map_item *it,
                             const struct non_contig_dim *dims,
                             const int64_t *units, int32_t ndims, int32_t dim,
                             uintptr_t offset, int64_t run) {
  if (dim == ndims - 1) {
    /* The innermost dimension is one contiguous run. */
    uintptr_t at = offset + (uintptr_t)(dims[dim].offset * dims[dim].stride);
    return update_range(c, it, (uintptr_t)it->base + at, run);
  }
  int64_t unit = units[dim];
  uintptr_t first = offset + (uintptr_t)(dims[dim].offset * unit);
  if (dim == ndims - 2 && dims[dim].stride == unit && run == unit)
    return update_range(c, it, (uintptr_t)it->base + first,
                        dims[dim].count * unit); /* contiguous: one copy */
  for (int64_t i = 0; i < dims[dim].count; i++) {
    uintptr_t at = first + (uintptr_t)(i * dims[dim].stride);
    if (update_non_contig(c, it, dims, units, ndims, dim + 1, at, run) != 0)
      return -1;
  }
  return 0;
}

/* The section strides written in a map name ("m[1:2:2][2:2:3]", clang
 * passes names with -g): for each of the `n` trailing [lower:length:stride]
 * groups, the stride when it is a decimal literal, 1 when none is written,
 * 0 when unknown (an expression). Returns false when the name does not end
 * in exactly n groups. */
static bool name_section_strides(const char *name, int32_t n,
                                 int64_t *strides) {
  size_t len = strlen(name);
  int32_t group = n;
  while (group > 0 && len > 0 && name[len - 1] == ']') {
    size_t close = len - 1, open = close;
    int depth = 0, colons = 0;
    const char *third = NULL;
    while (open > 0) {
      char ch = name[--open];
      if (ch == ']' || ch == ')')
        depth++;
      else if ((ch == '[' || ch == '(') && depth > 0)
        depth--;
      else if (ch == '[')
        break;
      else if (ch == ':' && depth == 0 && ++colons == 1)
        third = name + open + 1; /* after the last colon: the stride if 2 */
    }
    if (name[open] != '[')
      return false;
    int64_t stride = 1;
    if (colons == 2) {
      char *end;
      long long v = strtoll(third, &end, 10);
      stride = (end == name + close && end != third && v > 0) ? v : 0;
    }
    strides[--group] = stride;
    len = open;
  }
  return group == 0 && (len == 0 || name[len - 1] != ']');
}

/*
 * The byte size of one index step of each dimension (units[d]), which the
 * descriptor does not carry: clang gives each dimension's lower bound in
 * elements and its stride in bytes (section stride x unit), and LLVM's
 * runtime multiplies the lower bound by that stride, so c[1:3:2] copies
 * c[2], c[4], c[6] where OpenMP says c[1], c[3], c[5]. The two innermost
 * units are exact (the element size, the last descriptor's stride). An outer
 * unit is stride / s for a section stride s that the map name gives (with
 * -g); else s is unknown and the candidates are
 * those that are a multiple of the next unit, hold the next dimension's
 * selection, keep the whole section inside the mapped object holding the
 * base and, when that object begins at the base (the array itself is
 * mapped), divide its size. One candidate: it is used; none or several:
 * s = 1, LLVM's reading (README, "Differences from LLVM's runtime").
 */
static void non_contig_units(struct maps_construct *c,
                             const struct map_item *it,
                             const struct non_contig_dim *dims, int32_t ndims,
                             int64_t *units) {
  units[ndims - 1] = dims[ndims - 1].stride;
  if (ndims >= 2)
    units[ndims - 2] = dims[ndims - 1].stride;
  struct mapping_entry *e = mapping_find(&c->dev->map, (uintptr_t)it->base);
  char name[256];
  int64_t written[NON_CONTIG_MAX_DIMS];
  map_name_from_raw(it->name, name, sizeof name);
  bool named = ndims >= 2 && name_section_strides(name, ndims - 1, written);
  for (int32_t d = ndims - 3; d >= 0; d--) {
    if (named && written[d] > 0 && dims[d].stride % written[d] == 0) {
      units[d] = dims[d].stride / written[d]; /* the name says s */
      continue;
    }
    int64_t inner = units[d + 1], stride = dims[d].stride, found = 0;
    int candidates = 0;
    /* the next dimension's selection, in bytes from its row's start */
    int64_t need = dims[d + 1].offset * inner +
                   (dims[d + 1].count - 1) * dims[d + 1].stride + inner;
    for (int64_t s = 1; inner > 0 && s <= stride / inner; s++) {
      if (stride % s || (stride / s) % inner || stride / s < need)
        continue;
      int64_t unit = stride / s;
      if (e) {
        uint64_t room = e->hst_end - (uintptr_t)it->base;
        uint64_t last = (uint64_t)(dims[d].offset * unit) +
                        (uint64_t)((dims[d].count - 1) * stride) +
                        (uint64_t)unit;
        if (last > room ||
            (e->hst_begin == (uintptr_t)it->base && room % (uint64_t)unit))
          continue;
      }
      found = unit;
      candidates++;
    }
    units[d] = candidates == 1 ? found : stride;
    report_debug("%s: map entry %d: non-contiguous dimension %d: unit %" PRId64
                 " bytes (%d candidate%s)",
                 c->what, it->index, d, units[d], candidates,
                 candidates == 1 ? "" : "s");
  }
}

static int update_one(struct maps_construct *c, const struct map_item *it) {
  LOCK_ASSERT_HELD(&c->dev->map.lock);
  if (not_mapped_at_all(it->type) || (it->type & OMP_TGT_MAPTYPE_ATTACH))
    return 0;
  if (!(it->type & OMP_TGT_MAPTYPE_NON_CONTIG))
    return update_range(c, it, (uintptr_t)it->begin, it->size);
  int64_t ndims = it->size;
  const struct non_contig_dim *dims = it->begin;
  char name[96];
  if (ndims < 1 || ndims > NON_CONTIG_MAX_DIMS || !dims) {
    report_error_set(
        "%s: map entry %d (%s): non-contiguous update with %" PRId64
        " dimensions (1 to %d allowed)",
        c->what, it->index, item_name(it, name, sizeof name), ndims,
        NON_CONTIG_MAX_DIMS);
    return -1;
  }
  for (int64_t d = 0; d < ndims; d++) {
    report_debug("%s: map entry %d: non-contiguous dimension %" PRId64
                 ": offset %" PRId64 ", count %" PRId64 ", stride %" PRId64,
                 c->what, it->index, d, dims[d].offset, dims[d].count,
                 dims[d].stride);
    if (dims[d].count < 0 || dims[d].offset < 0 || dims[d].stride < 0) {
      report_error_set(
          "%s: map entry %d (%s): non-contiguous dimension %" PRId64
          " has offset %" PRId64 ", count %" PRId64 ", stride %" PRId64
          " (none may be negative)",
          c->what, it->index, item_name(it, name, sizeof name), d,
          dims[d].offset, dims[d].count, dims[d].stride);
      return -1;
    }
    if (dims[d].count == 0)
      return 0; /* an empty section transfers nothing */
  }
  int64_t run = dims[ndims - 1].count * dims[ndims - 1].stride;
  int64_t units[NON_CONTIG_MAX_DIMS];
  non_contig_units(c, it, dims, (int32_t)ndims, units);
  return update_non_contig(c, it, dims, units, (int32_t)ndims, 0, 0, run);
}

/* ---------------------------------------------- construct machinery */

static int push_item(struct item_list *l, const struct map_item *it) {
  if (ARRAY_RESERVE_INLINE(l->items, l->cap, l->num + 1, l->inline_items,
                           l->num) != 0)
    return -1;
  l->items[l->num++] = *it;
  return 0;
}

static void item_list_free(struct item_list *l) {
  for (size_t i = 0; i < l->num_expanded; i++)
    map_components_free(&l->expanded[i]);
  free(l->expanded);
  if (l->items != l->inline_items)
    free(l->items);
  l->items = l->inline_items;
  l->cap = INLINE_ITEMS;
  l->num = l->num_expanded = 0;
  l->expanded = NULL;
}

/* Flatten the construct's entries, replacing each entry that has a mapper
 * by the components its mapper pushes. */
static int build_items(const struct map_args *a, const char *what,
                       struct item_list *l) {
  memset(l, 0, sizeof *l);
  l->items = l->inline_items;
  l->cap = INLINE_ITEMS;
  size_t num_mappers = 0;
  for (int32_t i = 0; a->mappers && i < a->num; i++)
    num_mappers += a->mappers[i] != NULL;
  if (num_mappers) {
    l->expanded = calloc(num_mappers, sizeof *l->expanded);
    if (!l->expanded)
      goto out_no_memory;
  }
  for (int32_t i = 0; i < a->num; i++) {
    void *name = a->names ? a->names[i] : NULL;
    if (a->mappers && a->mappers[i]) {
      struct map_components *comp = &l->expanded[l->num_expanded++];
      if (mappers_expand(a->mappers[i], a->base[i], a->begin[i], a->sizes[i],
                         a->types[i], name, comp) != 0) {
        report_error_set("%s: map entry %d: its mapper failed", what, i);
        goto out_free;
      }
      trace_mapper(i, comp->num, comp->base, comp->begin, comp->sizes,
                   comp->types, comp->names);
      for (int32_t k = 0; k < comp->num; k++) {
        struct map_item it = {.base = comp->base[k],
                              .begin = comp->begin[k],
                              .size = comp->sizes[k],
                              .type = comp->types[k],
                              .name = comp->names[k] ? comp->names[k] : name,
                              .return_slot = NULL,
                              .index = i,
                              .component = k};
        if (push_item(l, &it) != 0)
          goto out_no_memory;
      }
      continue;
    }
    struct map_item it = {.base = a->base[i],
                          .begin = a->begin[i],
                          .size = a->sizes[i],
                          .type = a->types[i],
                          .name = name,
                          .return_slot = &a->base[i],
                          .index = i,
                          .component = -1};
    if (push_item(l, &it) != 0)
      goto out_no_memory;
  }
  return 0;

out_no_memory:
  report_error_set("%s: out of host memory listing %d map entries", what,
                   a->num);
out_free:
  item_list_free(l);
  return -1;
}

/* The record another construct queued work on entry e under, if its work is
 * still in flight. */
static struct async_record *busy_elsewhere(struct maps_construct *c,
                                           struct mapping_entry *e) {
  return e && e->busy && e->busy != c->rec ? e->busy : NULL;
}

/* With the table locked: make sure none of the construct's objects (nor the
 * pointers of its PTR_AND_OBJ entries) is busy for another asynchronous
 * construct. Waits for such a construct with the table unlocked, then looks
 * again; returns with the table locked and nothing busy. */
static void wait_for_busy_entries(struct maps_construct *c) {
  LOCK_ASSERT_HELD(&c->dev->map.lock);
  const struct item_list *l = &c->items;
  for (;;) {
    struct async_record *other = NULL;
    for (size_t i = 0; i < l->num && !other; i++) {
      const struct map_item *it = &l->items[i];
      if (not_mapped_at_all(it->type))
        continue;
      struct mapping_entry *e = NULL;
      if (!(it->type & OMP_TGT_MAPTYPE_NON_CONTIG) &&
          mapping_lookup(&c->dev->map, (uintptr_t)it->begin,
                         (uint64_t)it->size, &e) != MAPPING_ABSENT)
        other = busy_elsewhere(c, e);
      if (!other && (it->type & (OMP_TGT_MAPTYPE_PTR_AND_OBJ |
                                 OMP_TGT_MAPTYPE_ATTACH |
                                 OMP_TGT_MAPTYPE_NON_CONTIG))) {
        e = NULL;
        if (mapping_lookup(&c->dev->map, (uintptr_t)it->base, PTR_SIZE, &e) !=
            MAPPING_ABSENT)
          other = busy_elsewhere(c, e);
      }
    }
    if (!other)
      return;
    async_record_get(other);
    pthread_mutex_unlock(&c->dev->map.lock);
    report_debug("%s: waiting for an asynchronous %s on the same data", c->what,
                 "construct");
    async_record_wait(other); /* its failure is reported by its owner */
    async_record_put(other);
    pthread_mutex_lock(&c->dev->map.lock);
  }
}

/* An asynchronous construct's kernel and queued copies use the device memory
 * of every entry it touched until its record completes: pin them all. */
static int pin_touched(struct maps_construct *c) {
  for (size_t i = 0; c->rec && i < c->num_touched; i++)
    if (async_pin_entry(c->rec, c->touched[i].entry) != 0)
      return -1;
  return 0;
}

static void dump_on_failure(struct device *dev) {
  if (REPORT_INFO_ON(INFO_DUMP_TABLE))
    mapping_dump(&dev->map, stderr, "mapping table after the failure");
}

/* The ATTACH entries (after all others), then the pins; a failure rolls
 * back what the begin did. */
static int finish_begin(struct maps_construct *c, int rc) {
  LOCK_ASSERT_HELD(&c->dev->map.lock);
  for (size_t i = 0; i < c->items.num && rc == 0; i++) {
    const struct map_item *it = &c->items.items[i];
    trace_set_arg(it->index, it->component);
    if ((it->type & OMP_TGT_MAPTYPE_ATTACH) && !not_mapped_at_all(it->type) &&
        attach_deferred(c, it) != 0) {
      report_error_set("%s: attach of map entry %d failed", c->what,
                       it->index);
      rc = -1;
    }
  }
  /* Also after a failure: copies already queued may still write the
   * entries the rollback removes. */
  if (pin_touched(c) != 0)
    rc = -1;
  if (rc != 0)
    rollback_begin(c);
  return rc;
}

static int finish_end(struct maps_construct *c, int rc) {
  LOCK_ASSERT_HELD(&c->dev->map.lock);
  /* Even after a failure, what reached 0 is released: nothing leaks. */
  return remove_released(c) == 0 ? rc : -1;
}

enum pass_kind { PASS_BEGIN, PASS_END, PASS_UPDATE };

/* What each construct does to its items, with the table locked. */
static const struct pass {
  const char *what;
  int (*step)(struct maps_construct *, const struct map_item *);
  bool reverse; /* members before their parents, pointees before pointers */
  int (*finish)(struct maps_construct *, int rc); /* may be NULL */
} passes[] = {
    [PASS_BEGIN] = {"mapping on entry", begin_one, false, finish_begin},
    [PASS_END] = {"unmapping on exit", end_one, true, finish_end},
    [PASS_UPDATE] = {"target update", update_one, false, NULL},
};

/* Check the arrays and flatten them into c->items (calling the mappers). */
static int construct_init(struct maps_construct *c, struct device *dev,
                          const struct map_args *a, struct async_record *rec,
                          enum pass_kind first) {
  memset(c, 0, sizeof *c);
  c->touched = c->inline_touched;
  c->cap_touched = INLINE_TOUCHED;
  c->dev = dev;
  c->what = passes[first].what;
  c->rec = rec;
  c->copies_back = true;
  if (maps_check_args(a, c->what) != 0)
    return -1;
  return build_items(a, c->what, &c->items);
}

static void construct_release(struct maps_construct *c) {
  item_list_free(&c->items);
  if (c->touched != c->inline_touched)
    free(c->touched);
  c->touched = c->inline_touched;
  c->cap_touched = INLINE_TOUCHED;
}

/* An asynchronous construct's copies land later: its entries are no
 * longer compared by the stale check. */
static void forget_touched(struct maps_construct *c) {
  for (size_t i = 0; i < c->num_touched; i++)
    if (c->touched[i].entry)
      stale_forget(c->touched[i].entry);
}

/* The one driver of every construct: one pass over its items. */
static int run_pass(struct maps_construct *c, enum pass_kind kind) {
  const struct pass *p = &passes[kind];
  const size_t n = c->items.num;
  int rc = 0;
  c->what = p->what;
  c->exiting = kind == PASS_END;
  c->num_touched = 0;
  pthread_mutex_lock(&c->dev->map.lock);
  wait_for_busy_entries(c);
  for (size_t k = 0; k < n && rc == 0; k++) {
    const struct map_item *it = &c->items.items[p->reverse ? n - 1 - k : k];
    trace_set_arg(it->index, it->component);
    if (p->step(c, it) != 0) {
      report_error_set("%s: map entry %d%s failed", c->what, it->index,
                       it->component >= 0 ? " (mapper component)" : "");
      rc = -1;
    }
  }
  trace_set_arg(-1, -1);
  if (rc != 0) /* before the rollback removes the construct's entries */
    mapping_keep_for_report(&c->dev->map, c->dev->id);
  if (p->finish)
    rc = p->finish(c, rc);
  if (stale_check_on() && c->rec)
    forget_touched(c);
  if (rc != 0)
    /* a failure of the finish step */
    mapping_keep_for_report(&c->dev->map, c->dev->id);
  if (rc != 0)
    dump_on_failure(c->dev);
  pthread_mutex_unlock(&c->dev->map.lock);
  return rc;
}

static int run_construct(struct device *dev, const struct map_args *a,
                         struct async_record *rec, enum pass_kind kind) {
  struct maps_construct c;
  int rc = construct_init(&c, dev, a, rec, kind);
  if (rc == 0)
    rc = run_pass(&c, kind);
  construct_release(&c);
  return rc;
}

int maps_data_begin(struct device *dev, const struct map_args *a) {
  return run_construct(dev, a, NULL, PASS_BEGIN);
}

int maps_data_end(struct device *dev, const struct map_args *a) {
  return run_construct(dev, a, NULL, PASS_END);
}

int maps_data_update(struct device *dev, const struct map_args *a) {
  return run_construct(dev, a, NULL, PASS_UPDATE);
}

int maps_data_begin_async(struct device *dev, const struct map_args *a,
                          struct async_record *rec) {
  return run_construct(dev, a, rec, PASS_BEGIN);
}

int maps_data_end_async(struct device *dev, const struct map_args *a,
                        struct async_record *rec) {
  return run_construct(dev, a, rec, PASS_END);
}

int maps_data_update_async(struct device *dev, const struct map_args *a,
                           struct async_record *rec) {
  return run_construct(dev, a, rec, PASS_UPDATE);
}

/* ---------------------------------------------------- target regions */

struct maps_construct *maps_construct_new(struct device *dev,
                                          const struct map_args *a,
                                          struct async_record *rec) {
  struct maps_construct *c = malloc(sizeof *c);
  if (!c) {
    report_error_set("target: out of host memory for the construct's map "
                     "list");
    return NULL;
  }
  if (construct_init(c, dev, a, rec, PASS_BEGIN) != 0)
    goto out_free;
  /* Room for every entry one pass can touch (an object and its pointer per
   * item), so that no pass grows the array: an undo must not allocate. */
  if (ARRAY_RESERVE_INLINE(c->touched, c->cap_touched, 2 * c->items.num,
                           c->inline_touched, c->num_touched) != 0) {
    report_error_set("target: out of host memory for the bookkeeping of %zu "
                     "map entries",
                     c->items.num);
    goto out_free;
  }
  return c;

out_free:
  maps_construct_free(c);
  return NULL;
}

/* SIMTARGET_CHECK=stale: the region's kernel runs next on the entries its
 * begin pass touched. */
static void check_before_launch(struct maps_construct *c) {
  pthread_mutex_lock(&c->dev->map.lock);
  for (size_t i = 0; i < c->num_touched; i++)
    if (c->touched[i].entry)
      stale_before_launch(c->dev, c->touched[i].entry);
  pthread_mutex_unlock(&c->dev->map.lock);
  c->launch_checked = true;
}

/* The region's end or undo: its entries are no longer held by a running
 * region (the begin pass's touched list is still there: the end pass has
 * not started). */
static void check_region_ended(struct maps_construct *c) {
  if (!c->launch_checked)
    return;
  c->launch_checked = false;
  pthread_mutex_lock(&c->dev->map.lock);
  for (size_t i = 0; i < c->num_touched; i++)
    if (c->touched[i].entry)
      stale_region_ended(c->touched[i].entry);
  pthread_mutex_unlock(&c->dev->map.lock);
}

int maps_construct_begin(struct maps_construct *c) {
  int rc = run_pass(c, PASS_BEGIN);
  if (rc == 0 && stale_check_on() && !c->rec)
    check_before_launch(c);
  return rc;
}

void maps_note_runtime_write(struct device *dev, uintptr_t hst,
                             const void *bytes, size_t len) {
  pthread_mutex_lock(&dev->map.lock);
  struct mapping_entry *e = mapping_find(&dev->map, hst);
  if (e)
    stale_device_written(e, hst, bytes, len);
  pthread_mutex_unlock(&dev->map.lock);
}

int maps_construct_end(struct maps_construct *c) {
  check_region_ended(c);
  return run_pass(c, PASS_END);
}

int maps_construct_undo(struct maps_construct *c) {
  check_region_ended(c);
  c->rec = NULL; /* the caller waited for it: undo now */
  c->copies_back = false;
  return run_pass(c, PASS_END);
}

void maps_construct_free(struct maps_construct *c) {
  if (!c)
    return;
  construct_release(c);
  free(c);
}

int maps_kernel_arg(struct device *dev, void *base, void *begin, int64_t size,
                    int64_t type, void **value) {
  int rc = 0;
  struct mapping_entry *e = NULL;
  uintptr_t hb = (uintptr_t)begin;
  struct memory_block blk;
  /* PTR_AND_OBJ|TARGET_PARAM (clang 13-19: a global pointer, or a pointer
   * listed with its section): base is where the host pointer lives, and the
   * kernel gets the device version of its value, as in LLVM. */
  if ((type & OMP_TGT_MAPTYPE_PTR_AND_OBJ) && base)
    memcpy(&base, base, sizeof base);
  pthread_mutex_lock(&dev->map.lock);
  enum mapping_overlap ov =
      mapping_lookup(&dev->map, hb, size > 0 ? (uint64_t)size : 0, &e);
  if (ov == MAPPING_ABSENT && size == 0) {
    e = mapping_find_zero_size(&dev->map, hb);
    ov = e ? MAPPING_CONTAINED : MAPPING_ABSENT;
  }
  /* As LLVM's target(): any entry the argument overlaps gives its device
   * address (an implicit map may extend its entry on either side, and a
   * mapper may map less than the whole struct, e.g. not its padding); the
   * begin pass already refused explicit extensions. */
  bool usable = ov != MAPPING_ABSENT;
  if (usable) {
    *value = (void *)translate_pointer(e, hb, (uintptr_t)base);
  } else if (ov == MAPPING_ABSENT &&
             (mapping_find_device(&dev->map, hb) ||
              memory_blocks_find(dev->id, true, hb, &blk))) {
    *value = base; /* a device address already (device_resident) */
  } else if (size == 0) {
    *value = base;
    report_info(INFO_EMPTY_MAPPING,
                "kernel argument host %p (zero-size) is not mapped: the "
                "host value is passed",
                begin);
  } else if (dev->unified_memory) {
    *value = base; /* unified_shared_memory: host memory is device memory */
  } else {
    report_error_set("target: kernel argument host %p [0:%" PRId64
                     "] (map type 0x%" PRIx64 ") is %s on device %d",
                     begin, size, (uint64_t)type,
                     ov == MAPPING_ABSENT ? "not mapped" : "only partly mapped",
                     dev->id);
    rc = -1;
  }
  pthread_mutex_unlock(&dev->map.lock);
  return rc;
}
