/* device_allocators.c - memory allocators in device code: omp_alloc,
 * omp_aligned_alloc, omp_calloc, omp_realloc, omp_free with predefined
 * allocators, omp_init_allocator with traits (alignment, pool_size with the
 * null_fb and default_mem_fb fallbacks), the default-allocator ICV, the
 * `allocate` clause, and `uses_allocators` with traits.
 * cflags: -fopenmp-version=51
 * versions: 14 16 19 22
 * (LLVM 14-19's libomp asserts on an invalid trait value and crashes when a
 * pool falls back to the default allocator, so those are not tested here.)
 * expect: alignment, contents and fallbacks are as the allocator asked. */
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

/* uses_allocators with a traits array: clang 19+ parse it. */
#define USES_ALLOCATORS (__clang_major__ >= 19)

int main(void) {
  int aligned_ok = 0, calloc_ok = 0, realloc_ok = 0, pool_null = 0;
  int trait_align_ok = 0, default_ok = 0, clause_sum = 0, uses_ok = 0;
  omp_alloctrait_t uses_traits[] __attribute__((unused)) = {{omp_atk_alignment, 128}};
  omp_allocator_handle_t my_alloc __attribute__((unused)) = omp_null_allocator;

#if USES_ALLOCATORS
#pragma omp target map(tofrom : aligned_ok, calloc_ok, realloc_ok, pool_null, \
                           trait_align_ok, default_ok, clause_sum, uses_ok)                            \
    uses_allocators(my_alloc(uses_traits))
#else
#pragma omp target map(tofrom : aligned_ok, calloc_ok, realloc_ok, pool_null, \
                           trait_align_ok, default_ok, clause_sum, uses_ok)
#endif
#pragma omp parallel num_threads(1)
  {
    double *a = (double *)omp_aligned_alloc(256, 100 * sizeof(double), omp_default_mem_alloc);
    aligned_ok = a != NULL && ((uintptr_t)a % 256) == 0;
    for (int i = 0; i < 100; i++) a[i] = i;
    int *z = (int *)omp_calloc(50, sizeof(int), omp_large_cap_mem_alloc);
    calloc_ok = z != NULL;
    for (int i = 0; i < 50; i++) calloc_ok &= z[i] == 0;
    a = (double *)omp_realloc(a, 200 * sizeof(double), omp_default_mem_alloc,
                              omp_default_mem_alloc);
    realloc_ok = a != NULL && a[99] == 99.0 && a[0] == 0.0;
    omp_free(a, omp_default_mem_alloc);
    omp_free(z, omp_large_cap_mem_alloc);

    omp_alloctrait_t pool_traits[] = {{omp_atk_pool_size, 1024},
                                      {omp_atk_fallback, omp_atv_null_fb},
                                      {omp_atk_alignment, 64}};
    omp_allocator_handle_t small = omp_init_allocator(omp_default_mem_space, 3, pool_traits);
    void *p1 = omp_alloc(800, small);
    void *p2 = omp_alloc(800, small); /* over the pool: null_fb */
    pool_null = p1 != NULL && p2 == NULL;
    trait_align_ok = p1 != NULL && ((uintptr_t)p1 % 64) == 0;
    omp_free(p1, small);
    p2 = omp_alloc(800, small); /* room again */
    pool_null &= p2 != NULL;
    omp_free(p2, small);
    omp_destroy_allocator(small);

    omp_set_default_allocator(omp_high_bw_mem_alloc);
    default_ok = omp_get_default_allocator() == omp_high_bw_mem_alloc;
    void *d = omp_alloc(10, omp_null_allocator);
    default_ok &= d != NULL;
    omp_free(d, omp_null_allocator);
    omp_set_default_allocator(omp_default_mem_alloc);

    int local[16];
#pragma omp parallel for allocate(omp_pteam_mem_alloc : local) private(local) \
    reduction(+ : clause_sum) num_threads(2)
    for (int i = 0; i < 16; i++) {
      local[0] = i;
      clause_sum += local[0];
    }
#if USES_ALLOCATORS
    int *u = (int *)omp_alloc(64 * sizeof(int), my_alloc);
    uses_ok = u != NULL && ((uintptr_t)u % 128) == 0;
    omp_free(u, my_alloc);
#else
    uses_ok = 1;
#endif
  }
  CHECK(aligned_ok);
  CHECK(calloc_ok);
  CHECK(realloc_ok);
  CHECK(pool_null);
  CHECK(trait_align_ok);
  CHECK(default_ok);
  CHECK_EQ(clause_sum, 120);
  CHECK(uses_ok);
  return check_finish();
}
