/*
 * lock_check.h - "the caller holds this lock", checked in debug builds.
 *
 * Functions documented as "caller holds L" start with LOCK_ASSERT_HELD(&L).
 * In a build without NDEBUG (the default build, which `make check` tests)
 * it aborts with the function and lock named when the calling thread does
 * not own L. glibc records the owner's thread id in every mutex
 * (__data.__owner, for all mutex kinds), so no wrapper type is needed; where
 * that field does not exist, and with NDEBUG, the check compiles to nothing.
 */
#ifndef SIMTARGET_LOCK_CHECK_H
#define SIMTARGET_LOCK_CHECK_H

#include <pthread.h>

#if !defined(NDEBUG) && defined(__GLIBC__)
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
/* The owner is read without holding the mutex when the caller does not hold
 * it (that is the bug being caught), and glibc writes it inside the lock
 * call, before Helgrind sees the acquisition: Helgrind would report each
 * check as a race, so the field is excluded from its checking. */
#define LOCK_CHECK_UNTRACKED(m)                                                \
  VALGRIND_HG_DISABLE_CHECKING(&(m)->__data.__owner,                           \
                               sizeof(m)->__data.__owner)
#else
#define LOCK_CHECK_UNTRACKED(m) ((void)0)
#endif

static inline void lock_check_failed(const char *lock, const char *func,
                                     const char *file, int line) {
  fprintf(
      stderr,
      "simtarget: internal error: %s (%s:%d) requires the caller to hold %s\n",
      func, file, line, lock);
  abort();
}

#define LOCK_ASSERT_HELD(m)                                                    \
  do {                                                                         \
    LOCK_CHECK_UNTRACKED(m);                                                   \
    if ((m)->__data.__owner != (int)gettid())                                  \
      lock_check_failed(#m, __func__, __FILE__, __LINE__);                     \
  } while (0)
#else
#define LOCK_ASSERT_HELD(m) ((void)(m))
#endif

#endif
