/*
 * translate.c - __kmpc_target_translate_fptr (seed 003): device code compiled
 * to translate a host function pointer before an indirect call asks here.
 * A binary search over the host -> device table the server installed with
 * simdev_rt_set_fptr_map; an unknown pointer is returned unchanged (it may
 * already be a device function).
 *
 * Locking: none. The table is installed only while no kernel runs (between
 * commands of the device server), and kernel threads are started after that
 * through the pool's own synchronisation; the release/acquire pair below
 * orders the rows before their count for any other reader.
 */
#include <stdatomic.h>
#include <stddef.h>

#include "simdev_rt.h"

static const struct simdev_rt_fptr_row *_Atomic fptr_rows;
static _Atomic uint64_t fptr_count;

void simdev_rt_set_fptr_map(const struct simdev_rt_fptr_row *rows,
                            uint64_t count) {
  atomic_store_explicit(&fptr_count, 0, memory_order_release);
  atomic_store_explicit(&fptr_rows, rows, memory_order_release);
  atomic_store_explicit(&fptr_count, rows ? count : 0, memory_order_release);
}

void *__kmpc_target_translate_fptr(uint64_t fn) {
  uint64_t n = atomic_load_explicit(&fptr_count, memory_order_acquire);
  const struct simdev_rt_fptr_row *rows =
      atomic_load_explicit(&fptr_rows, memory_order_acquire);
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (rows[mid].host == fn)
      return (void *)rows[mid].device;
    if (rows[mid].host < fn)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (void *)fn;
}
