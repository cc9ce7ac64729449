/*
 * kernels.c - a device image built by hand, as a compiler's device link
 * would: plain x86-64 functions with the kernel calling convention (one
 * 64-bit integer-class value per TARGET_PARAM entry) and an entry table
 * `.omp_offloading.entry.<name>` (legacy layout) that the plugin resolves.
 * Built as build/tests/abi/kernels.so; the ABI tests embed its bytes in a
 * __tgt_bin_desc.
 */
#include <stddef.h>
#include <stdint.h>

struct legacy_entry {
  void *addr;
  const char *name;
  size_t size;
  int32_t flags;
  int32_t reserved;
};
#define ENTRY(sym, size)                                                       \
  __attribute__((used, visibility("default"))) const struct legacy_entry       \
      entry_##sym __asm__(".omp_offloading.entry." #sym) = {(void *)&sym,      \
                                                            #sym, size, 0, 0}

#define M 8
#define S 2
struct S1 {
  int x, y, B[M], *pB, u, v;
};

/* seed 000's pointer-mapping example: the body of its target region */
__attribute__((visibility("default"))) void seed_kernel(int *pA, int *A,
                                                        struct S1 *s1, int *C,
                                                        long i, int *D) {
  for (i = S; i < M; ++i) {
    ++A[i];
    --pA[i];
    s1->pB[i - S] = s1->B[i - S] + A[i] * pA[i] - C[i] * D[i];
  }
}
ENTRY(seed_kernel, 0);

/* y[i] = x[i] * k for n elements */
__attribute__((visibility("default"))) void scale_kernel(long *y,
                                                         const long *x,
                                                         long n, long k) {
  for (long i = 0; i < n; i++)
    y[i] = x[i] * k;
}
ENTRY(scale_kernel, 0);

/* clang 19+ kernels take a leading dyn_ptr */
__attribute__((visibility("default"))) void dyn_kernel(void *dyn_ptr,
                                                       long *out, long v) {
  out[0] = v + (dyn_ptr == NULL ? 1 : 1000);
}
ENTRY(dyn_kernel, 0);

/* a declare-target global */
__attribute__((visibility("default"))) long device_counter = 5;
ENTRY(device_counter, sizeof(long));

__attribute__((visibility("default"))) void bump_counter(void) {
  device_counter += 10;
}
ENTRY(bump_counter, 0);
