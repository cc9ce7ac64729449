/*
 * cpu_relax.h - cpu_relax(): the body of a spin-wait loop.
 *
 * A spinning thread tells the CPU it is waiting, so that the other hardware
 * thread of its core (often the one it waits for) gets the execution units,
 * and on x86 the loop exit does not pay a memory-order mis-speculation.
 * Every form is also a compiler barrier, so a loop around a plain load is
 * re-read each time. No lock: it touches no data.
 */
#ifndef SIMTARGET_CPU_RELAX_H
#define SIMTARGET_CPU_RELAX_H

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("pause" ::: "memory");
#elif defined(__powerpc__) || defined(__powerpc64__)
  /* SMT priority low, then back to medium: the sibling threads run. */
  __asm__ __volatile__("or 1,1,1\n\tor 2,2,2" ::: "memory");
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#else
  __asm__ __volatile__("" ::: "memory");
#endif
}

#endif
