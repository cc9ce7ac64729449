/*
 * reduce.c - reductions (__kmpc_reduce*, __kmpc_end_reduce*) and the
 * lock-based __kmpc_atomic_* routines for types with no native atomics.
 *
 * Reductions answer 1, "combine your partial result under the lock" (no
 * lock for a team of one, see combine_is_shared), or 2, "combine with
 * atomics", for a shared combine the compiler made an atomic form of
 * (reduce_begin). The lock is the image's own reduction lock name (`lck`), which is
 * the same for every thread of every team of the image, so it also makes
 * the league-level (teams) reduction safe, where the combining threads are
 * in different teams. Compilers emit per-type __atomic_* libcalls for long
 * double and _Complex `atomic` constructs (clang 13-22); the __kmpc_atomic_*
 * routines here are for compilers that follow libomp's documented ABI.
 *
 * Locks: the reduction lock is the futex word in `lck` (see lock.c); the
 * __kmpc_atomic_* routines share one futex word, `atomic_word`.
 */
#include <complex.h>

#include "rt_internal.h"
#include "valgrind_hints.h"

static _Atomic int32_t reduce_fallback_word;
static _Atomic int32_t atomic_word;

static _Atomic int32_t *reduce_word(kmp_critical_name *lck)
{
  return lck ? (_Atomic int32_t *)&(*lck)[0] : &reduce_fallback_word;
}

/* Whether the calling thread's combine can meet another's: a team of one
 * thread combines alone (as in libomp, which takes no lock for a team of
 * one), except in a league's initial region, where the combining threads
 * are the teams' and several teams may run at once. A GPU-shaped league
 * (256 teams of one thread, a parallel and a teams reduction each) spent a
 * quarter of its time on this lock when every combine took it. */
static int combine_is_shared(const struct rt_team *t)
{
  if (t->nthreads > 1)
    return 1;
  return t->level == 0 && t->league && t->league->nteams > 1;
}

/* libomp's KMP_IDENT_ATOMIC_REDUCE: the compiler emitted the atomic form
 * of this reduction too (clang always does, with a critical section for
 * what has no atomic). */
#define IDENT_ATOMIC_REDUCE 0x10

/* 2: combine with atomics; 1: combine, under the reduction lock when the
 * member's reduce_held says so (reduce_end lets it go).
 * A shared combine uses the atomic form where the compiler made one: two
 * teams' runners took turns on the lock, and a holder preempted by the
 * host's waiting thread stalled the other (a fifth of a GPU-shaped
 * league's time). Under Valgrind it keeps the lock: Helgrind and DRD do
 * not take atomic instructions for synchronisation and would report the
 * combines as races. */
static int32_t reduce_begin(ident_t *loc, kmp_critical_name *lck)
{
  struct rt_member *m = rt_current();
  m->reduce_held = NULL;
  if (!combine_is_shared(m->team))
    return 1;
  if (loc && (loc->flags & IDENT_ATOMIC_REDUCE) && !valgrind_hints_on)
    return 2;
  m->reduce_held = reduce_word(lck);
  rt_word_lock(m->reduce_held);
  return 1;
}

/* The member is the one reduce_begin saw: the combine in between forks
 * and joins nothing. */
static void reduce_end(void)
{
  struct rt_member *m = rt_current();
  if (m->reduce_held) {
    rt_word_unlock(m->reduce_held);
    m->reduce_held = NULL;
  }
}

EXPORT int32_t __kmpc_reduce_nowait(ident_t *loc, UNUSED int32_t gtid, UNUSED int32_t num_vars,
                                    UNUSED size_t reduce_size, UNUSED void *reduce_data,
                                    UNUSED void (*reduce_func)(void *, void *),
                                    kmp_critical_name *lck)
{
  return reduce_begin(loc, lck);
}

EXPORT void __kmpc_end_reduce_nowait(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                     UNUSED kmp_critical_name *lck)
{
  reduce_end();
}

EXPORT int32_t __kmpc_reduce(ident_t *loc, UNUSED int32_t gtid, UNUSED int32_t num_vars,
                             UNUSED size_t reduce_size, UNUSED void *reduce_data,
                             UNUSED void (*reduce_func)(void *, void *), kmp_critical_name *lck)
{
  return reduce_begin(loc, lck);
}

/* The blocking form ends with the construct's barrier; the compiler calls
 * it after an atomic combine (2) as well. */
EXPORT void __kmpc_end_reduce(UNUSED ident_t *loc, UNUSED int32_t gtid,
                              UNUSED kmp_critical_name *lck)
{
  reduce_end();
  rt_team_barrier(rt_current()->team);
}

EXPORT void __kmpc_atomic_start(void) { rt_word_lock(&atomic_word); }
EXPORT void __kmpc_atomic_end(void) { rt_word_unlock(&atomic_word); }


#define ATOMIC_OP(NAME, T, OP)                                                                     \
  EXPORT void __kmpc_atomic_##NAME(UNUSED ident_t *loc, UNUSED int32_t gtid, T *lhs, T rhs)      \
  {                                                                                               \
    rt_word_lock(&atomic_word);                                                                   \
    *lhs = *lhs OP rhs;                                                                           \
    rt_word_unlock(&atomic_word);                                                                 \
  }                                                                                               \
  /* capture: returns the new value if flag, else the old one */                                  \
  EXPORT T __kmpc_atomic_##NAME##_cpt(UNUSED ident_t *loc, UNUSED int32_t gtid, T *lhs, T rhs,   \
                                      int flag)                                                   \
  {                                                                                               \
    rt_word_lock(&atomic_word);                                                                   \
    T old = *lhs;                                                                                 \
    *lhs = old OP rhs;                                                                            \
    T ret = flag ? *lhs : old;                                                                    \
    rt_word_unlock(&atomic_word);                                                                 \
    return ret;                                                                                   \
  }

#define ATOMIC_RW(NAME, T)                                                                         \
  EXPORT T __kmpc_atomic_##NAME##_rd(UNUSED ident_t *loc, UNUSED int32_t gtid, T *src)           \
  {                                                                                               \
    rt_word_lock(&atomic_word);                                                                   \
    T v = *src;                                                                                   \
    rt_word_unlock(&atomic_word);                                                                 \
    return v;                                                                                     \
  }                                                                                               \
  EXPORT void __kmpc_atomic_##NAME##_wr(UNUSED ident_t *loc, UNUSED int32_t gtid, T *lhs, T rhs) \
  {                                                                                               \
    rt_word_lock(&atomic_word);                                                                   \
    *lhs = rhs;                                                                                   \
    rt_word_unlock(&atomic_word);                                                                 \
  }

#define ATOMIC_ARITH(PFX, T)                                                                       \
  ATOMIC_OP(PFX##_add, T, +)                                                                      \
  ATOMIC_OP(PFX##_sub, T, -)                                                                      \
  ATOMIC_OP(PFX##_mul, T, *)                                                                      \
  ATOMIC_OP(PFX##_div, T, /)                                                                      \
  ATOMIC_RW(PFX, T)

ATOMIC_ARITH(float10, float10)
ATOMIC_ARITH(cmplx4, cmplx4)
ATOMIC_ARITH(cmplx8, cmplx8)
ATOMIC_ARITH(cmplx10, cmplx10)
