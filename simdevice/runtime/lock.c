/*
 * lock.c - the futex word lock, `critical` (named, unnamed, with hint) and
 * the omp_*_lock / omp_*_nest_lock API.
 *
 * Locks: a critical construct's lock is a futex word inside the image's own
 * kmp_critical_name (32 zero bytes), and an omp_lock_t holds its futex word
 * in place, so neither needs allocation. A nest lock is a small heap object
 * (owner + depth do not fit in omp_nest_lock_t's 8 bytes) whose `word`
 * guards ownership; owner and depth are only written by the owner.
 */
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_relax.h"
#include "rt_internal.h"
#include "valgrind_hints.h"

static void futex_wait(_Atomic int32_t *w, int32_t val)
{
  syscall(SYS_futex, (int32_t *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake_one(_Atomic int32_t *w)
{
  syscall(SYS_futex, (int32_t *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Polls of a held lock before sleeping on it (a few hundred nanoseconds):
 * what these locks guard is short (a reduction's combine, a critical
 * section), so the holder usually lets go sooner than a futex sleep and
 * wake would take. A GPU-shaped league (256 teams, one combine each) paid
 * a futex wait in most combines without it. */
#define LOCK_SPINS 100

static void word_lock(_Atomic int32_t *w)
{
  int32_t c = 0;
  if (atomic_compare_exchange_strong(w, &c, 1))
    return;
  for (int i = 0; i < LOCK_SPINS && c != 2; i++) {
    cpu_relax();
    c = atomic_load_explicit(w, memory_order_relaxed);
    if (c == 0 && atomic_compare_exchange_weak(w, &c, 1))
      return;
  }
  if (c != 2)
    c = atomic_exchange(w, 2);
  while (c != 0) {
    futex_wait(w, 2);
    c = atomic_exchange(w, 2);
  }
}

/* The holder's critical section follows the last holder's: ThreadSanitizer
 * in the device process, and Helgrind and DRD (SIMDEVICE_VALGRIND), see no
 * lock in a futex word, so each release is told to happen before the next
 * acquisition (a reduction's combine, a critical section, __kmpc_atomic_*)
 * and only real races are reported. */
HIDDEN void rt_word_lock(_Atomic int32_t *w)
{
  word_lock(w);
  rt_tsan_acquire(w);
  VALGRIND_HINT(ANNOTATE_HAPPENS_AFTER(w));
}

HIDDEN int rt_word_trylock(_Atomic int32_t *w)
{
  int32_t c = 0;
  if (!atomic_compare_exchange_strong(w, &c, 1))
    return 0;
  rt_tsan_acquire(w);
  VALGRIND_HINT(ANNOTATE_HAPPENS_AFTER(w));
  return 1;
}

HIDDEN void rt_word_unlock(_Atomic int32_t *w)
{
  rt_tsan_release(w);
  VALGRIND_HINT(ANNOTATE_HAPPENS_BEFORE(w));
  if (atomic_fetch_sub(w, 1) != 1) {
    atomic_store(w, 0);
    futex_wake_one(w);
  }
}

/* Used when a construct passes no lock name of its own. */
static _Atomic int32_t anonymous_critical;

static _Atomic int32_t *critical_word(kmp_critical_name *crit)
{
  return crit ? (_Atomic int32_t *)&(*crit)[0] : &anonymous_critical;
}

EXPORT void __kmpc_critical(UNUSED ident_t *loc, UNUSED int32_t gtid, kmp_critical_name *crit)
{
  rt_word_lock(critical_word(crit));
}

EXPORT void __kmpc_critical_with_hint(UNUSED ident_t *loc, UNUSED int32_t gtid,
                                      kmp_critical_name *crit, UNUSED uint32_t hint)
{
  rt_word_lock(critical_word(crit));
}

EXPORT void __kmpc_end_critical(UNUSED ident_t *loc, UNUSED int32_t gtid, kmp_critical_name *crit)
{
  rt_word_unlock(critical_word(crit));
}

/* ------------------------------------------------------------ omp locks */

struct nest_lock {
  _Atomic int32_t word;
  _Atomic int32_t owner; /* gtid + 1 of the holder, 0 when free */
  int32_t depth;
};

_Static_assert(sizeof(omp_lock_t) >= sizeof(int32_t), "futex word fits in omp_lock_t");

static _Atomic int32_t *lock_word(omp_lock_t *l) { return (_Atomic int32_t *)(void *)l; }

EXPORT void omp_init_lock(omp_lock_t *l)
{
  if (!l) {
    rt_error("omp_init_lock: the lock argument is NULL");
    return;
  }
  l->impl = NULL; /* the futex word (first 4 bytes) is 0: free */
}

EXPORT void omp_init_lock_with_hint(omp_lock_t *l, UNUSED int hint) { omp_init_lock(l); }

EXPORT void omp_destroy_lock(omp_lock_t *l)
{
  if (l && atomic_load(lock_word(l)) != 0)
    rt_error("omp_destroy_lock: lock %p is destroyed while held", (void *)l);
}

EXPORT void omp_set_lock(omp_lock_t *l)
{
  if (!l) {
    rt_error("omp_set_lock: the lock argument is NULL");
    return;
  }
  rt_word_lock(lock_word(l));
}

EXPORT void omp_unset_lock(omp_lock_t *l)
{
  if (!l || atomic_load(lock_word(l)) == 0) {
    rt_error("omp_unset_lock: lock %p is not held", (void *)l);
    return;
  }
  rt_word_unlock(lock_word(l));
}

EXPORT int omp_test_lock(omp_lock_t *l)
{
  if (!l) {
    rt_error("omp_test_lock: the lock argument is NULL");
    return 0;
  }
  return rt_word_trylock(lock_word(l));
}

EXPORT void omp_init_nest_lock(omp_nest_lock_t *l)
{
  if (!l) {
    rt_error("omp_init_nest_lock: the lock argument is NULL");
    return;
  }
  struct nest_lock *n = calloc(1, sizeof(*n));
  if (!n)
    rt_error("omp_init_nest_lock: out of memory for lock %p; it will not work", (void *)l);
  l->impl = n;
}

EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t *l, UNUSED int hint)
{
  omp_init_nest_lock(l);
}

static struct nest_lock *nest_of(omp_nest_lock_t *l, const char *fn)
{
  if (!l || !l->impl) {
    rt_error("%s: nest lock %p is not initialised", fn, (void *)l);
    return NULL;
  }
  return l->impl;
}

EXPORT void omp_destroy_nest_lock(omp_nest_lock_t *l)
{
  struct nest_lock *n = nest_of(l, "omp_destroy_nest_lock");
  if (!n)
    return;
  if (atomic_load(&n->owner) != 0)
    rt_error("omp_destroy_nest_lock: nest lock %p is destroyed while held", (void *)l);
  free(n);
  l->impl = NULL;
}

/* Returns the new nesting depth. */
static int nest_acquire(struct nest_lock *n, int blocking)
{
  int32_t me = rt_gtid() + 1;
  if (atomic_load(&n->owner) == me)
    return ++n->depth;
  if (blocking)
    rt_word_lock(&n->word);
  else if (!rt_word_trylock(&n->word))
    return 0;
  atomic_store(&n->owner, me);
  n->depth = 1;
  return 1;
}

EXPORT void omp_set_nest_lock(omp_nest_lock_t *l)
{
  struct nest_lock *n = nest_of(l, "omp_set_nest_lock");
  if (n)
    nest_acquire(n, 1);
}

EXPORT int omp_test_nest_lock(omp_nest_lock_t *l)
{
  struct nest_lock *n = nest_of(l, "omp_test_nest_lock");
  return n ? nest_acquire(n, 0) : 0;
}

EXPORT void omp_unset_nest_lock(omp_nest_lock_t *l)
{
  struct nest_lock *n = nest_of(l, "omp_unset_nest_lock");
  if (!n)
    return;
  if (atomic_load(&n->owner) != rt_gtid() + 1) {
    rt_error("omp_unset_nest_lock: nest lock %p is not held by this thread", (void *)l);
    return;
  }
  if (--n->depth == 0) {
    atomic_store(&n->owner, 0);
    rt_word_unlock(&n->word);
  }
}

/* libomp's __kmpc_*_lock forms of the lock routines: the user lock is the
 * same pointer-sized storage as omp_lock_t / omp_nest_lock_t. */
#define KMPC_LOCK_FORM(NAME, OMP_NAME, TYPE, ...)                                    \
  EXPORT void NAME(UNUSED ident_t *loc, UNUSED int32_t gtid, void **lock __VA_ARGS__) \
  {                                                                                 \
    OMP_NAME((TYPE *)lock);                                                         \
  }
KMPC_LOCK_FORM(__kmpc_init_lock, omp_init_lock, omp_lock_t)
KMPC_LOCK_FORM(__kmpc_init_lock_with_hint, omp_init_lock, omp_lock_t, , UNUSED uintptr_t hint)
KMPC_LOCK_FORM(__kmpc_destroy_lock, omp_destroy_lock, omp_lock_t)
KMPC_LOCK_FORM(__kmpc_set_lock, omp_set_lock, omp_lock_t)
KMPC_LOCK_FORM(__kmpc_unset_lock, omp_unset_lock, omp_lock_t)
KMPC_LOCK_FORM(__kmpc_init_nest_lock, omp_init_nest_lock, omp_nest_lock_t)
KMPC_LOCK_FORM(__kmpc_init_nest_lock_with_hint, omp_init_nest_lock, omp_nest_lock_t, ,
               UNUSED uintptr_t hint)
KMPC_LOCK_FORM(__kmpc_destroy_nest_lock, omp_destroy_nest_lock, omp_nest_lock_t)
KMPC_LOCK_FORM(__kmpc_set_nest_lock, omp_set_nest_lock, omp_nest_lock_t)
KMPC_LOCK_FORM(__kmpc_unset_nest_lock, omp_unset_nest_lock, omp_nest_lock_t)
EXPORT int __kmpc_test_lock(UNUSED ident_t *loc, UNUSED int32_t gtid, void **lock)
{
  return omp_test_lock((omp_lock_t *)lock);
}
EXPORT int __kmpc_test_nest_lock(UNUSED ident_t *loc, UNUSED int32_t gtid, void **lock)
{
  return omp_test_nest_lock((omp_nest_lock_t *)lock);
}
