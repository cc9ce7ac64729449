/*
 * valgrind_hints.h - Helgrind's client requests (helgrind.h), made cheap
 * where Valgrind is absent.
 *
 * A client request is a dozen instructions even natively (the magic
 * rotate sequence and its argument block), and a few sit on the path of
 * every target region (the lock-free fast paths tell Helgrind about their
 * atomics each time). VALGRIND_HINT(request) runs the request only under
 * Valgrind, which each file that includes this header learns once, in a
 * constructor that runs when its library loads, before the library's own
 * constructors (priority 101) and so before any call into it.
 *
 * Locking: the flag is written once, by the constructor, before any other
 * thread can run code of the library; it is only read afterwards.
 */
#ifndef SIMTARGET_VALGRIND_HINTS_H
#define SIMTARGET_VALGRIND_HINTS_H

#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>

static int valgrind_hints_on;

__attribute__((constructor(101))) static void valgrind_hints_init(void) {
  valgrind_hints_on = RUNNING_ON_VALGRIND != 0;
}

#define VALGRIND_HINT(request)                                                 \
  do {                                                                         \
    if (__builtin_expect(valgrind_hints_on, 0))                                \
      request;                                                                 \
  } while (0)
#else
/* Built without Valgrind's headers: nothing is told to Valgrind, and
 * code that chooses otherwise under it (valgrind_hints_on) never does. */
#define valgrind_hints_on 0
#define ANNOTATE_HAPPENS_BEFORE(obj) ((void)0)
#define ANNOTATE_HAPPENS_AFTER(obj) ((void)0)
#define VALGRIND_HG_DISABLE_CHECKING(addr, len) ((void)0)
#define VALGRIND_HG_ENABLE_CHECKING(addr, len) ((void)0)
#define VALGRIND_HINT(request) ((void)0)
#endif

#endif
