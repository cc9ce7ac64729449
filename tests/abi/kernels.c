/*
 * kernels.c - a device image built by hand, as a compiler's device link
 * would: plain x86-64 functions with the kernel calling convention (one
 * 64-bit integer-class value per TARGET_PARAM entry) and an entry table
 * `.omp_offloading.entry.<name>` (legacy layout) that the plugin resolves.
 * Built as build/tests/abi/kernels.so; the ABI tests embed its bytes in a
 * __tgt_bin_desc.
 */
#include "image_entry.h"

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

/* ---- asynchronous tests (tests/abi/test_async.c) ---- */
#include <unistd.h>

/* x[0] = x[0] * 10 + v, after sleeping `us` microseconds: the sleep keeps
 * the device busy without a host CPU, the formula records the order. */
__attribute__((visibility("default"))) void slow_step_kernel(long *x, long v,
                                                             long us) {
  usleep((useconds_t)us);
  x[0] = x[0] * 10 + v;
}
ENTRY(slow_step_kernel, 0);

/* A rendezvous of two kernels on different queues: wait_flag_kernel waits
 * (up to 10 s) for set_flag_kernel to raise the flag; out[0] = 1 when it
 * saw it, 0 when it gave up (the kernels did not run at the same time). */
__attribute__((visibility("default"))) volatile long device_flag;
ENTRY(device_flag, sizeof(long));

__attribute__((visibility("default"))) void wait_flag_kernel(long *out) {
  long seen = 0;
  for (int i = 0; i < 10000 && !seen; i++) {
    seen = __atomic_load_n(&device_flag, __ATOMIC_ACQUIRE);
    if (!seen)
      usleep(1000);
  }
  out[0] = seen;
}
ENTRY(wait_flag_kernel, 0);

__attribute__((visibility("default"))) void set_flag_kernel(void) {
  __atomic_store_n(&device_flag, 1, __ATOMIC_RELEASE);
}
ENTRY(set_flag_kernel, 0);

/* out[0] = in[0] once the flag is up (-1 when it never came): reads `in`
 * long after its launch, while other constructs change the table. */
__attribute__((visibility("default"))) void wait_flag_read_kernel(
    long *out, const long *in) {
  long seen = 0;
  for (int i = 0; i < 10000 && !seen; i++) {
    seen = __atomic_load_n(&device_flag, __ATOMIC_ACQUIRE);
    if (!seen)
      usleep(1000);
  }
  out[0] = seen ? in[0] : -1;
}
ENTRY(wait_flag_read_kernel, 0);
