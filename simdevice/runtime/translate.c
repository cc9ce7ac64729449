/*
 * translate.c - __kmpc_target_translate_fptr (seed 003): device code compiled
 * to translate a host function pointer before an indirect call asks here.
 * A binary search over the host -> device table the server installed with
 * simdev_rt_set_fptr_map; an unknown pointer is returned unchanged (it may
 * already be a device function).
 *
 * Locking: none. The server installs a table from its main thread while
 * kernels may run on its queue-slot threads, so a table is never changed in
 * place: set_fptr_map copies the rows into a new table and publishes it with
 * one atomic pointer (release/acquire orders the rows before it). A replaced
 * table is kept, not freed, because a kernel thread may still be searching
 * it and counting readers would cost every indirect call an atomic on a
 * shared line; the server installs a table once per image registration
 * (and a restart starts a new process), so the kept tables stay small.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"
#include "simdev_rt.h"

struct fptr_table {
  struct fptr_table *replaced; /* the table before this one (kept) */
  uint64_t count;
  struct simdev_rt_fptr_row rows[];
};

static struct fptr_table *_Atomic current_table;

int simdev_rt_set_fptr_map(const struct simdev_rt_fptr_row *rows, uint64_t count)
{
  if (rows == NULL)
    count = 0;
  if (count > (SIZE_MAX - sizeof(struct fptr_table)) / sizeof rows[0]) {
    rt_error("simdev_rt_set_fptr_map: a table of %llu rows is too large",
             (unsigned long long)count);
    return -1;
  }
  struct fptr_table *t = malloc(sizeof *t + count * sizeof rows[0]);
  if (t == NULL) {
    rt_error("simdev_rt_set_fptr_map: no memory for a table of %llu rows",
             (unsigned long long)count);
    return -1;
  }
  t->count = count;
  if (count > 0)
    memcpy(t->rows, rows, count * sizeof rows[0]);
  /* Only the server's main thread installs: no other writer to race. */
  t->replaced = atomic_load_explicit(&current_table, memory_order_relaxed);
  atomic_store_explicit(&current_table, t, memory_order_release);
  return 0;
}

void *__kmpc_target_translate_fptr(uint64_t fn)
{
  const struct fptr_table *t = atomic_load_explicit(&current_table, memory_order_acquire);
  uint64_t lo = 0, hi = t ? t->count : 0;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (t->rows[mid].host == fn)
      return (void *)t->rows[mid].device;
    if (t->rows[mid].host < fn)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (void *)fn;
}
