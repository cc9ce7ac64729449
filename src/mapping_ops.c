/*
 * mapping_ops.c - the locked table operations of mapping_ops.h: what the
 * memory routines (associate, disassociate, present, mapped pointer), the
 * device's image loading (declare target globals) and the reports (dumps)
 * need from a mapping table, so that no file above the mapping layer takes
 * the table's lock or writes an entry.
 *
 * Locking: every function takes t->lock around its whole table work.
 */
#include "mapping_ops.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

static void range_of(const struct mapping_entry *e, struct mapping_range *r) {
  r->hst_begin = e->hst_begin;
  r->hst_end = e->hst_end;
  r->tgt_begin = e->tgt_begin;
  r->hold_refcount = e->hold_refcount;
  memcpy(r->name, e->name, sizeof r->name);
}

bool mapping_is_present(struct mapping_table *t, uintptr_t addr) {
  pthread_mutex_lock(&t->lock);
  bool present = mapping_find(t, addr) != NULL;
  pthread_mutex_unlock(&t->lock);
  return present;
}

uintptr_t mapping_device_address(struct mapping_table *t, uintptr_t addr) {
  uintptr_t tgt = 0;
  pthread_mutex_lock(&t->lock);
  struct mapping_entry *e = mapping_find(t, addr);
  if (e)
    tgt = e->tgt_begin + (addr - e->hst_begin);
  pthread_mutex_unlock(&t->lock);
  return tgt;
}

/* Under t->lock: a new entry that is never removed by reference counting
 * and whose device memory is not ours. NULL with the cause recorded. */
static struct mapping_entry *insert_permanent(struct mapping_table *t,
                                              uintptr_t hb, size_t size,
                                              uintptr_t tb, const char *name) {
  struct mapping_entry *e = mapping_insert(t, hb, hb + size, tb, name);
  if (e) {
    e->dyn_refcount = MAPPING_REFCOUNT_INFINITE;
    e->hold_refcount = 0;
    e->owned = false;
  }
  return e;
}

int mapping_associate(struct mapping_table *t, uintptr_t hb, size_t size,
                      uintptr_t tb, struct mapping_range *other) {
  int rc = 0;
  pthread_mutex_lock(&t->lock);
  struct mapping_entry *e = NULL;
  enum mapping_overlap o = mapping_lookup(t, hb, size, &e);
  if (o == MAPPING_ABSENT) {
    e = insert_permanent(t, hb, size, tb, "associated");
    if (e)
      e->associated = true;
    else
      rc = ENOMEM;
  } else if (!(o == MAPPING_CONTAINED &&
               e->tgt_begin + (hb - e->hst_begin) == tb)) {
    range_of(e, other);
    rc = EEXIST;
  }
  pthread_mutex_unlock(&t->lock);
  return rc;
}

int mapping_disassociate(struct mapping_table *t, uintptr_t hb,
                         struct mapping_range *other) {
  int rc = 0;
  pthread_mutex_lock(&t->lock);
  struct mapping_entry *e = mapping_find(t, hb);
  if (!e || e->hst_begin != hb) {
    rc = ENOENT;
  } else if (!e->associated) {
    rc = EPERM;
  } else if (e->hold_refcount > 0) {
    range_of(e, other);
    rc = EBUSY;
  } else {
    mapping_remove(t, e);
  }
  pthread_mutex_unlock(&t->lock);
  return rc;
}

int mapping_add_global(struct mapping_table *t, uintptr_t hb, size_t size,
                       uintptr_t tb, const char *name,
                       struct mapping_range *other) {
  int rc = 0;
  pthread_mutex_lock(&t->lock);
  struct mapping_entry *e = NULL;
  if (mapping_lookup(t, hb, size, &e) != MAPPING_ABSENT) {
    range_of(e, other);
    rc = EEXIST;
  } else if (!insert_permanent(t, hb, size, tb, name)) {
    rc = -1;
  }
  pthread_mutex_unlock(&t->lock);
  return rc;
}

void mapping_remove_global(struct mapping_table *t, uintptr_t hb,
                           size_t size) {
  pthread_mutex_lock(&t->lock);
  struct mapping_entry *e = mapping_find(t, hb);
  if (e && e->hst_begin == hb && e->hst_end == hb + size && !e->owned &&
      e->dyn_refcount == MAPPING_REFCOUNT_INFINITE)
    mapping_remove(t, e);
  pthread_mutex_unlock(&t->lock);
}

bool mapping_entry_of_host(struct mapping_table *t, uintptr_t addr,
                           struct mapping_range *out) {
  pthread_mutex_lock(&t->lock);
  struct mapping_entry *e = mapping_find(t, addr);
  if (e)
    range_of(e, out);
  pthread_mutex_unlock(&t->lock);
  return e != NULL;
}

bool mapping_entry_near_device(struct mapping_table *t, uintptr_t addr,
                               uintptr_t reach, struct mapping_range *out,
                               bool *beyond) {
  struct mapping_entry *e = NULL;
  uintptr_t off = 0;
  pthread_mutex_lock(&t->lock);
  for (; off <= reach && !e; off++)
    e = mapping_find_device(t, addr - off);
  if (e)
    range_of(e, out);
  pthread_mutex_unlock(&t->lock);
  *beyond = e && off > 1;
  return e != NULL;
}

bool mapping_entry_after_device(struct mapping_table *t, uintptr_t addr,
                                uintptr_t reach, struct mapping_range *out) {
  struct mapping_entry *e = NULL;
  pthread_mutex_lock(&t->lock);
  for (uintptr_t off = 1; off <= reach && !e; off++)
    e = mapping_find_device(t, addr + off);
  if (e)
    range_of(e, out);
  pthread_mutex_unlock(&t->lock);
  return e != NULL;
}

bool mapping_removed_at(struct mapping_table *t, uintptr_t addr,
                        struct mapping_removed *out) {
  pthread_mutex_lock(&t->lock);
  const struct mapping_removed *r = mapping_find_removed(t, addr);
  if (r)
    *out = *r;
  pthread_mutex_unlock(&t->lock);
  return r != NULL;
}

void mapping_dump_locking(struct mapping_table *t, FILE *out,
                          const char *title) {
  pthread_mutex_lock(&t->lock);
  mapping_dump(t, out, title);
  pthread_mutex_unlock(&t->lock);
}

bool mapping_foreach_if_free(struct mapping_table *t,
                             int (*fn)(struct mapping_entry *, void *),
                             void *arg) {
  if (pthread_mutex_trylock(&t->lock) != 0)
    return false;
  mapping_foreach(t, fn, arg);
  pthread_mutex_unlock(&t->lock);
  return true;
}

bool mapping_dump_if_free(struct mapping_table *t, FILE *out,
                          const char *title) {
  if (pthread_mutex_trylock(&t->lock) != 0)
    return false;
  mapping_dump(t, out, title);
  pthread_mutex_unlock(&t->lock);
  return true;
}

void mapping_keep_for_report_locking(struct mapping_table *t, int device_id) {
  pthread_mutex_lock(&t->lock);
  mapping_keep_for_report(t, device_id);
  pthread_mutex_unlock(&t->lock);
}
