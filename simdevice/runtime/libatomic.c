/*
 * libatomic.c - the generic __atomic_* library calls that clang emits for
 * `atomic` constructs and reductions on types with no lock-free atomics
 * (long double, _Complex double, and larger), so device images that were
 * linked without -latomic still load in the device process (clang 13/14
 * leave them undefined in the image). They follow GCC's libatomic ABI.
 *
 * Locks: a table of futex words; an object's word is chosen by its start
 * address, and every generic call on an object uses its start address, so
 * all accesses to one object take the same word.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "rt_internal.h"

#define STRIPES 64
static _Atomic int32_t stripes[STRIPES];

static _Atomic int32_t *stripe_of(const void *p)
{
  return &stripes[((uintptr_t)p >> 4) % STRIPES];
}

/* C names differ from the builtins' names; the asm labels give the
 * exported names. */
EXPORT void rt_atomic_load(size_t size, void *src, void *dest, int model) __asm__("__atomic_load");
EXPORT void rt_atomic_store(size_t size, void *dest, void *val, int model) __asm__("__atomic_store");
EXPORT void rt_atomic_exchange(size_t size, void *ptr, void *val, void *ret, int model)
    __asm__("__atomic_exchange");
EXPORT bool rt_atomic_compare_exchange(size_t size, void *ptr, void *expected, void *desired,
                                       int success, int failure)
    __asm__("__atomic_compare_exchange");

void rt_atomic_load(size_t size, void *src, void *dest, UNUSED int model)
{
  _Atomic int32_t *w = stripe_of(src);
  rt_word_lock(w);
  memcpy(dest, src, size);
  rt_word_unlock(w);
}

void rt_atomic_store(size_t size, void *dest, void *val, UNUSED int model)
{
  _Atomic int32_t *w = stripe_of(dest);
  rt_word_lock(w);
  memcpy(dest, val, size);
  rt_word_unlock(w);
}

void rt_atomic_exchange(size_t size, void *ptr, void *val, void *ret, UNUSED int model)
{
  _Atomic int32_t *w = stripe_of(ptr);
  rt_word_lock(w);
  memcpy(ret, ptr, size);
  memcpy(ptr, val, size);
  rt_word_unlock(w);
}

bool rt_atomic_compare_exchange(size_t size, void *ptr, void *expected, void *desired,
                                UNUSED int success, UNUSED int failure)
{
  _Atomic int32_t *w = stripe_of(ptr);
  bool equal;
  rt_word_lock(w);
  equal = memcmp(ptr, expected, size) == 0;
  if (equal)
    memcpy(ptr, desired, size);
  else
    memcpy(expected, ptr, size);
  rt_word_unlock(w);
  return equal;
}
