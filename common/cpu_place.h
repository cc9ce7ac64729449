/*
 * cpu_place.h - which CPU the calling thread runs on, for the host and
 * the device process to tell each other (simdev_slot's host_cpu and
 * server_cpu): a side that waits for the other on the other's own CPU
 * sleeps instead of spinning, since there every spin and every
 * sched_yield() is time the other side cannot run: the scheduler gives a
 * yielding thread's CPU away only while it finds the other owed time. On
 * the 2-core test VM the two sides sometimes share a CPU for a whole
 * benchmark section; a small map(tofrom) region then took 36 us, 6.6 us
 * with the sleep (tests/programs/one_cpu_round_trips.c confines a program
 * to one CPU). No lock: it touches no shared data.
 */
#ifndef SIMTARGET_CPU_PLACE_H
#define SIMTARGET_CPU_PLACE_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

/* The calling thread's CPU + 1, or 0 when unknown (glibc reads it from the
 * thread's rseq area: no system call). */
static inline uint32_t cpu_place_here(void) {
  int cpu = sched_getcpu();
  return cpu < 0 ? 0u : (uint32_t)cpu + 1u;
}

/* Publishes `here` in `word` unless it says so already (a store only on a
 * change keeps the line shared with the side that reads it). */
static inline void cpu_place_publish(_Atomic uint32_t *word, uint32_t here) {
  if (atomic_load_explicit(word, memory_order_relaxed) != here)
    atomic_store_explicit(word, here, memory_order_relaxed);
}

/* 1 when the other side said it runs on `here` (cpu_place_here). */
static inline int cpu_place_shared(_Atomic uint32_t *other, uint32_t here) {
  uint32_t there = atomic_load_explicit(other, memory_order_relaxed);
  return there != 0 && there == here;
}

#endif
