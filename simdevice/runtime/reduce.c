/*
 * reduce.c - reductions (__kmpc_reduce*, __kmpc_end_reduce*) and the
 * lock-based __kmpc_atomic_* routines for types with no native atomics.
 *
 * Reductions always answer 1: "combine your partial result under the
 * lock" (no lock for a team of one, see combine_is_shared). The lock is the image's own reduction lock name (`lck`), which is
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

EXPORT int32_t __kmpc_reduce_nowait(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                    UNUSED int32_t num_vars, UNUSED size_t reduce_size,
                                    UNUSED void *reduce_data,
                                    UNUSED void (*reduce_func)(void *, void *),
                                    kmp_critical_name *lck)
{
  if (combine_is_shared(rt_current()->team))
    rt_word_lock(reduce_word(lck));
  return 1;
}

/* The team is the one __kmpc_reduce_nowait saw: the combine in between
 * forks and joins nothing. */
EXPORT void __kmpc_end_reduce_nowait(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                     kmp_critical_name *lck)
{
  if (combine_is_shared(rt_current()->team))
    rt_word_unlock(reduce_word(lck));
}

EXPORT int32_t __kmpc_reduce(ident_t *loc, int32_t gtid, int32_t num_vars, size_t reduce_size,
                             void *reduce_data, void (*reduce_func)(void *, void *),
                             kmp_critical_name *lck)
{
  return __kmpc_reduce_nowait(loc, gtid, num_vars, reduce_size, reduce_data, reduce_func, lck);
}

/* The blocking form ends with the construct's barrier. */
EXPORT void __kmpc_end_reduce(ident_t *loc, int32_t gtid, kmp_critical_name *lck)
{
  __kmpc_end_reduce_nowait(loc, gtid, lck);
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
