/*
 * alloc.c - OpenMP memory allocators in device code: omp_alloc and its
 * relatives, the `allocate` clause and directive (__kmpc_alloc/__kmpc_free),
 * `uses_allocators` with traits (__kmpc_init_allocator), the predefined
 * allocators and memory spaces, and the default-allocator ICV.
 *
 * All memory spaces are the device process's heap (every thread of every
 * team can reach it, which is what the pteam/cgroup/thread allocators ask
 * at least). Traits are honoured: alignment, pool_size (a pool exhausted
 * takes the fallback: default_mem_fb, null_fb, abort_fb or allocator_fb
 * with fb_data), and the rest (sync_hint, access, pinned, partition) are
 * accepted with their valid values. Each block carries a header in front of
 * it that names its allocator and size, so omp_free and omp_realloc work
 * whatever allocator the caller passes, and a pool is credited back.
 *
 * Locks: none; a pool's usage is an atomic counter, the default allocator
 * is per thread.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

/* Predefined handles, as libomp and omp.h number them. */
enum {
  NULL_ALLOC = 0,
  DEFAULT_MEM_ALLOC = 1,
  LAST_PREDEFINED_ALLOC = 8, /* omp_thread_mem_alloc */
  LLVM_TARGET_HOST_ALLOC = 100,
  LLVM_TARGET_DEVICE_ALLOC = 102,
  LAST_PREDEFINED_SPACE = 4, /* omp_low_lat_mem_space */
  LLVM_TARGET_HOST_SPACE = 100,
  LLVM_TARGET_DEVICE_SPACE = 102,
};

/* omp_alloctrait_key_t / omp_alloctrait_value_t values used here. */
enum {
  ATK_SYNC_HINT = 1, ATK_ALIGNMENT, ATK_ACCESS, ATK_POOL_SIZE, ATK_FALLBACK, ATK_FB_DATA,
  ATK_PINNED, ATK_PARTITION
};
enum { ATV_DEFAULT_MEM_FB = 11, ATV_NULL_FB, ATV_ABORT_FB, ATV_ALLOCATOR_FB };

typedef struct {
  intptr_t key;
  uintptr_t value;
} omp_alloctrait_t;

#define ALLOCATOR_MAGIC 0x5a11c0c8u

struct rt_allocator {
  uint32_t magic;
  uintptr_t memspace;
  size_t alignment;
  uint64_t pool_size; /* 0: no limit */
  _Atomic uint64_t pool_used;
  intptr_t fallback;
  uintptr_t fb_allocator;
};

/* In front of every block. */
struct block_header {
  void *base;
  size_t size;
  uintptr_t allocator;
};

EXPORT const uintptr_t omp_null_allocator = 0;
EXPORT const uintptr_t omp_default_mem_alloc = 1;
EXPORT const uintptr_t omp_large_cap_mem_alloc = 2;
EXPORT const uintptr_t omp_const_mem_alloc = 3;
EXPORT const uintptr_t omp_high_bw_mem_alloc = 4;
EXPORT const uintptr_t omp_low_lat_mem_alloc = 5;
EXPORT const uintptr_t omp_cgroup_mem_alloc = 6;
EXPORT const uintptr_t omp_pteam_mem_alloc = 7;
EXPORT const uintptr_t omp_thread_mem_alloc = 8;
EXPORT const uintptr_t omp_default_mem_space = 0;
EXPORT const uintptr_t omp_large_cap_mem_space = 1;
EXPORT const uintptr_t omp_const_mem_space = 2;
EXPORT const uintptr_t omp_high_bw_mem_space = 3;
EXPORT const uintptr_t omp_low_lat_mem_space = 4;

static _Thread_local uintptr_t default_allocator = DEFAULT_MEM_ALLOC;

static int is_predefined(uintptr_t a)
{
  return (a >= DEFAULT_MEM_ALLOC && a <= LAST_PREDEFINED_ALLOC) ||
         (a >= LLVM_TARGET_HOST_ALLOC && a <= LLVM_TARGET_DEVICE_ALLOC);
}

/* The user allocator behind a handle, NULL for a predefined one; reports
 * and returns NULL with *bad set for a handle that is neither. */
static struct rt_allocator *user_allocator(uintptr_t a, const char *routine, int *bad)
{
  *bad = 0;
  if (is_predefined(a))
    return NULL;
  struct rt_allocator *al = (struct rt_allocator *)a;
  if (a < 4096 || al->magic != ALLOCATOR_MAGIC) {
    rt_error("%s: allocator handle %#lx is neither a predefined allocator nor one made by "
             "omp_init_allocator (or it was destroyed)",
             routine, (unsigned long)a);
    *bad = 1;
  }
  return *bad ? NULL : al;
}

static void *allocate(uintptr_t a, size_t align, size_t size, int zero, const char *routine)
{
  if (size == 0)
    return NULL;
  if (a == NULL_ALLOC)
    a = default_allocator;
  int bad;
  struct rt_allocator *al = user_allocator(a, routine, &bad);
  if (bad)
    return NULL;
  if (al && al->alignment > align)
    align = al->alignment;
  if (align < 16)
    align = 16;
  if (align & (align - 1)) {
    rt_error("%s: alignment %zu is not a power of two", routine, align);
    return NULL;
  }
  if (size > SIZE_MAX - align - sizeof(struct block_header))
    return NULL;
  if (al && al->pool_size) {
    uint64_t used = atomic_fetch_add(&al->pool_used, size) + size;
    if (used > al->pool_size) {
      atomic_fetch_sub(&al->pool_used, size);
      switch (al->fallback) {
      case ATV_NULL_FB:
        return NULL;
      case ATV_ABORT_FB:
        rt_error("%s: the allocator's pool of %llu bytes cannot hold %zu more bytes, and its "
                 "fallback trait is abort_fb",
                 routine, (unsigned long long)al->pool_size, size);
        abort();
      case ATV_ALLOCATOR_FB:
        return allocate(al->fb_allocator, align, size, zero, routine);
      default:
        return allocate(DEFAULT_MEM_ALLOC, align, size, zero, routine);
      }
    }
  }
  size_t total = size + align + sizeof(struct block_header);
  char *base = zero ? calloc(1, total) : malloc(total);
  if (!base) {
    if (al && al->pool_size)
      atomic_fetch_sub(&al->pool_used, size);
    if (al && al->fallback == ATV_ALLOCATOR_FB)
      return allocate(al->fb_allocator, align, size, zero, routine);
    return NULL;
  }
  uintptr_t p = ((uintptr_t)base + sizeof(struct block_header) + align - 1) & ~(uintptr_t)(align - 1);
  struct block_header *h = (struct block_header *)p - 1;
  h->base = base;
  h->size = size;
  h->allocator = a;
  return (void *)p;
}

static void release(void *ptr)
{
  if (!ptr)
    return;
  struct block_header *h = (struct block_header *)ptr - 1;
  int bad;
  struct rt_allocator *al = user_allocator(h->allocator, "omp_free", &bad);
  if (al && al->pool_size)
    atomic_fetch_sub(&al->pool_used, h->size);
  free(h->base);
}

static void *reallocate(void *ptr, size_t size, uintptr_t a, uintptr_t free_a)
{
  if (!ptr)
    return allocate(a, 0, size, 0, "omp_realloc");
  if (size == 0) {
    release(ptr);
    return NULL;
  }
  struct block_header *h = (struct block_header *)ptr - 1;
  if (a == NULL_ALLOC)
    a = free_a != NULL_ALLOC ? free_a : h->allocator;
  void *next = allocate(a, 0, size, 0, "omp_realloc");
  if (!next)
    return NULL; /* the old block stays valid, as realloc's does */
  memcpy(next, ptr, h->size < size ? h->size : size);
  release(ptr);
  return next;
}

static uintptr_t init_allocator(uintptr_t memspace, int ntraits, const omp_alloctrait_t *traits)
{
  if (memspace > LAST_PREDEFINED_SPACE &&
      !(memspace >= LLVM_TARGET_HOST_SPACE && memspace <= LLVM_TARGET_DEVICE_SPACE))
    return NULL_ALLOC;
  struct rt_allocator al = {.magic = ALLOCATOR_MAGIC, .memspace = memspace,
                            .fallback = ATV_DEFAULT_MEM_FB};
  for (int i = 0; i < ntraits; i++) {
    uintptr_t v = traits[i].value;
    switch (traits[i].key) {
    case ATK_ALIGNMENT:
      if (v == 0 || (v & (v - 1)))
        return NULL_ALLOC; /* not a power of two: invalid trait */
      al.alignment = v;
      break;
    case ATK_POOL_SIZE:
      al.pool_size = v;
      break;
    case ATK_FALLBACK:
      if (v < ATV_DEFAULT_MEM_FB || v > ATV_ALLOCATOR_FB)
        return NULL_ALLOC;
      al.fallback = (intptr_t)v;
      break;
    case ATK_FB_DATA:
      al.fb_allocator = v;
      break;
    case ATK_SYNC_HINT: case ATK_ACCESS: case ATK_PINNED: case ATK_PARTITION:
      break; /* every valid value has the same effect on one heap */
    default:
      return NULL_ALLOC;
    }
  }
  if (al.fallback == ATV_ALLOCATOR_FB && al.fb_allocator == NULL_ALLOC)
    return NULL_ALLOC;
  struct rt_allocator *made = malloc(sizeof *made);
  if (!made)
    return NULL_ALLOC;
  memcpy(made, &al, sizeof al);
  return (uintptr_t)made;
}

static void destroy_allocator(uintptr_t a)
{
  int bad;
  struct rt_allocator *al = user_allocator(a, "omp_destroy_allocator", &bad);
  if (!al)
    return;
  al->magic = 0;
  free(al);
}

EXPORT void *omp_alloc(size_t size, uintptr_t allocator)
{
  return allocate(allocator, 0, size, 0, "omp_alloc");
}
EXPORT void *omp_aligned_alloc(size_t align, size_t size, uintptr_t allocator)
{
  return allocate(allocator, align, size, 0, "omp_aligned_alloc");
}
EXPORT void *omp_calloc(size_t n, size_t size, uintptr_t allocator)
{
  if (size && n > SIZE_MAX / size)
    return NULL;
  return allocate(allocator, 0, n * size, 1, "omp_calloc");
}
EXPORT void *omp_aligned_calloc(size_t align, size_t n, size_t size, uintptr_t allocator)
{
  if (size && n > SIZE_MAX / size)
    return NULL;
  return allocate(allocator, align, n * size, 1, "omp_aligned_calloc");
}
EXPORT void *omp_realloc(void *ptr, size_t size, uintptr_t allocator, uintptr_t free_allocator)
{
  return reallocate(ptr, size, allocator, free_allocator);
}
EXPORT void omp_free(void *ptr, UNUSED uintptr_t allocator) { release(ptr); }
EXPORT uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const void *traits)
{
  return init_allocator(memspace, ntraits, traits);
}
EXPORT void omp_destroy_allocator(uintptr_t allocator) { destroy_allocator(allocator); }
EXPORT void omp_set_default_allocator(uintptr_t allocator) { default_allocator = allocator; }
EXPORT uintptr_t omp_get_default_allocator(void) { return default_allocator; }

/* The compiler's forms (allocate clause/directive, uses_allocators). */
EXPORT void *__kmpc_alloc(UNUSED int32_t gtid, size_t size, uintptr_t allocator)
{
  return allocate(allocator, 0, size, 0, "allocate");
}
EXPORT void *__kmpc_aligned_alloc(UNUSED int32_t gtid, size_t align, size_t size,
                                  uintptr_t allocator)
{
  return allocate(allocator, align, size, 0, "allocate align");
}
EXPORT void *__kmpc_calloc(UNUSED int32_t gtid, size_t n, size_t size, uintptr_t allocator)
{
  return omp_calloc(n, size, allocator);
}
EXPORT void *__kmpc_realloc(UNUSED int32_t gtid, void *ptr, size_t size, uintptr_t allocator,
                            uintptr_t free_allocator)
{
  return reallocate(ptr, size, allocator, free_allocator);
}
EXPORT void __kmpc_free(UNUSED int32_t gtid, void *ptr, UNUSED uintptr_t allocator)
{
  release(ptr);
}
EXPORT uintptr_t __kmpc_init_allocator(UNUSED int32_t gtid, uintptr_t memspace, int ntraits,
                                       const void *traits)
{
  return init_allocator(memspace, ntraits, traits);
}
EXPORT void __kmpc_destroy_allocator(UNUSED int32_t gtid, uintptr_t allocator)
{
  destroy_allocator(allocator);
}
EXPORT void __kmpc_set_default_allocator(UNUSED int32_t gtid, uintptr_t allocator)
{
  default_allocator = allocator;
}
EXPORT uintptr_t __kmpc_get_default_allocator(UNUSED int32_t gtid) { return default_allocator; }
