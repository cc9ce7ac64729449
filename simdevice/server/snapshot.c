/*
 * snapshot.c - an immutable table that the main thread replaces while other
 * threads read it, fault handlers included (server.h, struct snapshot).
 *
 * Why not a lock: a fault handler must never block (the thread it
 * interrupted may hold any lock), and a seqlock would let a reader follow
 * pointers into memory the writer is freeing. So a table is never changed in
 * place: the writer builds a new one, swaps the pointer, waits until no
 * reader can still hold the old one, and only then frees it. Readers only
 * count themselves in and out (two atomic additions, async-signal-safe).
 *
 * Grace period: readers count themselves in readers[epoch & 1]. The writer,
 * after the swap, moves `epoch` on and waits for the counter readers used
 * until then to drain, twice, so that both counters have been seen at zero
 * after the swap. A reader that took the old pointer counted itself before
 * the swap, so it is gone by then; a reader that counts itself later gets
 * the new pointer. New readers go to the other counter while the writer
 * waits, so a steady stream of them cannot starve it.
 *
 * Locking: only the main server thread calls snapshot_replace; any thread
 * may read. Everything is seq_cst atomics.
 */
#include <sched.h>
#include <stdatomic.h>

#include "cpu_relax.h"
#include "server.h"

const void *snapshot_enter(struct snapshot *s, unsigned *ticket) {
  unsigned idx = atomic_load(&s->epoch) & 1u;
  atomic_fetch_add(&s->readers[idx], 1);
  *ticket = idx;
  return atomic_load(&s->current);
}

void snapshot_leave(struct snapshot *s, unsigned ticket) {
  atomic_fetch_sub(&s->readers[ticket & 1u], 1);
}

void *snapshot_replace(struct snapshot *s, void *next) {
  void *old = atomic_exchange(&s->current, next);
  for (int pass = 0; pass < 2; pass++) {
    unsigned drained = atomic_fetch_add(&s->epoch, 1) & 1u;
    for (unsigned spin = 0; atomic_load(&s->readers[drained]) != 0; spin++) {
      cpu_relax();
      /* A reader may be preempted on this CPU: let it finish. */
      if ((spin & 63u) == 63u)
        sched_yield();
    }
  }
  return old;
}
