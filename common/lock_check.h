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
#include "valgrind_hints.h"
/* The owner is read without holding the mutex when the caller does not hold
 * it (that is the bug being caught), and glibc writes it inside the lock
 * call, before Helgrind sees the acquisition: Helgrind would report each
 * check as a race, so the field is excluded from its checking. */
#define LOCK_CHECK_UNTRACKED(m)                                                \
  VALGRIND_HINT(VALGRIND_HG_DISABLE_CHECKING(&(m)->__data.__owner,             \
                                             sizeof(m)->__data.__owner))

static inline void lock_check_failed(const char *lock, const char *func,
                                     const char *file, int line) {
  fprintf(
      stderr,
      "simtarget: internal error: %s (%s:%d) requires the caller to hold %s\n",
      func, file, line, lock);
  abort();
}

/* The calling thread's kernel id, as glibc records it in a mutex it locks.
 * gettid() is a system call (about 160 ns here), and these checks sit on
 * the launch and lookup paths, so each thread asks once; a forked child's
 * thread has a new id, so fork clears the cached one. Each file including
 * this header has its own copy of the cache. */
static __thread int lock_check_cached_tid;
static pthread_once_t lock_check_atfork_once = PTHREAD_ONCE_INIT;
static inline void lock_check_forget_tid(void) { lock_check_cached_tid = 0; }
static inline void lock_check_watch_fork(void) {
  pthread_atfork(NULL, NULL, lock_check_forget_tid);
}
static inline int lock_check_tid(void) {
  if (lock_check_cached_tid == 0) {
    pthread_once(&lock_check_atfork_once, lock_check_watch_fork);
    lock_check_cached_tid = (int)gettid();
  }
  return lock_check_cached_tid;
}

#define LOCK_ASSERT_HELD(m)                                                    \
  do {                                                                         \
    LOCK_CHECK_UNTRACKED(m);                                                   \
    if ((m)->__data.__owner != lock_check_tid())                               \
      lock_check_failed(#m, __func__, __FILE__, __LINE__);                     \
  } while (0)
#else
#define LOCK_ASSERT_HELD(m) ((void)(m))
#endif

#endif
