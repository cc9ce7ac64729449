/*
 * array.h - the one way src/ grows an array: a pointer and a capacity in
 * elements (the count of elements in use is the caller's). Capacities
 * double from ARRAY_MIN_CAPACITY; sizes are checked for overflow; a failed
 * growth leaves the array as it was, so the caller still owns and frees it.
 *
 *   struct x *xs = NULL; size_t num = 0, cap = 0;
 *   if (ARRAY_RESERVE(xs, cap, num + 1) != 0) return out_of_memory();
 *   xs[num++] = x;
 *
 * Parallel arrays that share one capacity grow with array_capacity and
 * ARRAY_RESIZE. No locks: the caller guards the array.
 */
#ifndef SIMTARGET_ARRAY_H
#define SIMTARGET_ARRAY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_MIN_CAPACITY 8

/* The capacity to grow `cap` to so that it holds `need` elements: `cap`
 * when it already does, else `cap` doubled (from ARRAY_MIN_CAPACITY) until
 * it does; 0 when that overflows. */
static inline size_t array_capacity(size_t cap, size_t need) {
  if (need <= cap)
    return cap;
  size_t n = cap ? cap : ARRAY_MIN_CAPACITY;
  while (n < need) {
    if (n > SIZE_MAX / 2)
      return 0;
    n *= 2;
  }
  return n;
}

/* Reallocate the array whose pointer is stored at `array_ptr` (a `T **`) to
 * `n` elements of `elem` bytes. 0, or -1 (overflow, out of memory) with the
 * array unchanged. The pointer is read and written with memcpy, so any
 * element type goes through one function without casts between pointer
 * types. */
static inline int array_resize(void *array_ptr, size_t n, size_t elem) {
  if (n == 0 || n > SIZE_MAX / elem)
    return -1;
  void *old;
  memcpy(&old, array_ptr, sizeof old);
  void *grown = realloc(old, n * elem);
  if (!grown)
    return -1;
  memcpy(array_ptr, &grown, sizeof grown);
  return 0;
}

/* Make room for `need` elements in the array `*array_ptr` of capacity
 * `*cap`. 0, or -1 (out of memory) with array and capacity unchanged. */
static inline int array_reserve(void *array_ptr, size_t *cap, size_t need,
                                size_t elem) {
  if (need <= *cap)
    return 0;
  size_t n = array_capacity(*cap, need);
  if (array_resize(array_ptr, n, elem) != 0)
    return -1;
  *cap = n;
  return 0;
}

/* array_reserve for an array that starts in `inline_buf`, storage of the
 * struct that owns the array (the pointer set to it, `*cap` to its length):
 * the first growth past it moves the `used` elements to the heap, so a
 * short list costs no allocation. The owner frees the array only when it
 * is not `inline_buf`. */
static inline int array_reserve_inline(void *array_ptr, size_t *cap,
                                       size_t need, size_t elem,
                                       const void *inline_buf, size_t used) {
  void *cur;
  memcpy(&cur, array_ptr, sizeof cur);
  if (need <= *cap || cur != inline_buf)
    return array_reserve(array_ptr, cap, need, elem);
  size_t n = array_capacity(*cap, need);
  if (n == 0 || n > SIZE_MAX / elem)
    return -1;
  void *heap = malloc(n * elem);
  if (!heap)
    return -1;
  memcpy(heap, inline_buf, used * elem);
  memcpy(array_ptr, &heap, sizeof heap);
  *cap = n;
  return 0;
}

/* `array` and `cap` are lvalues (a `T *` and a size_t), each evaluated
 * once. */
#define ARRAY_RESERVE(array, cap, need)                                        \
  array_reserve(&(array), &(cap), (need), sizeof *(array))
#define ARRAY_RESERVE_INLINE(array, cap, need, inline_buf, used)              \
  array_reserve_inline(&(array), &(cap), (need), sizeof *(array),             \
                       (inline_buf), (used))
#define ARRAY_RESIZE(array, n) array_resize(&(array), (n), sizeof *(array))

#endif
