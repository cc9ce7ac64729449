/* memory_routines.c - the host's device memory routines of OpenMP 5.1-6.0
 * and LLVM's allocators, as a program uses them: omp_target_memcpy_async
 * with and without depend objects (the copy waits for the task that writes
 * its source), omp_target_memcpy_rect_async, omp_target_memset(_async)
 * (clang 19+ headers), omp_get_mapped_ptr, and
 * llvm_omp_target_alloc_host/_shared/_device: one pointer used by host code
 * and by kernels (is_device_ptr).
 * cflags: -fopenmp-version=51
 * versions: 14 16 19 22
 * spread-versions: 19 22
 * expect: every copy, fill and shared update lands where asked, in order. */
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"

/* LLVM 14 and 16's libomptarget.so, which clang 14/16 link against, have no
 * asynchronous routines: those programs use the synchronous ones. */
#define HAS_ASYNC (__clang_major__ >= 19)

#define N 64
#define ROWS 6
#define COLS 8

void *llvm_omp_target_alloc_host(size_t size, int device_num);
void *llvm_omp_target_alloc_shared(size_t size, int device_num);
void *llvm_omp_target_alloc_device(size_t size, int device_num);
void llvm_omp_target_free_host(void *ptr, int device_num);
void llvm_omp_target_free_shared(void *ptr, int device_num);
void llvm_omp_target_free_device(void *ptr, int device_num);

int h[N], back[N]; /* globals, as users write them */

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int *d = (int *)omp_target_alloc(N * sizeof(int), dev);
  CHECK(d != NULL);

  /* 1. async copy after the task that writes the source (depend object). */
  omp_depend_t written;
#pragma omp depobj(written) depend(inout : h)
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task depend(out : h)
    {
      usleep(20000); /* the copy must not start before this task ends */
      for (int i = 0; i < N; i++) h[i] = 7 + i;
    }
#if HAS_ASYNC
    CHECK_EQ(omp_target_memcpy_async(d, h, N * sizeof(int), 0, 0, dev, host, 1, &written), 0);
#pragma omp taskwait
#else
#pragma omp taskwait
    CHECK_EQ(omp_target_memcpy(d, h, N * sizeof(int), 0, 0, dev, host), 0);
#endif
  }
#pragma omp depobj(written) destroy
#pragma omp target is_device_ptr(d)
  for (int i = 0; i < N; i++) d[i] *= 2;
#if HAS_ASYNC
  CHECK_EQ(omp_target_memcpy_async(back, d, N * sizeof(int), 0, 0, host, dev, 0, NULL), 0);
#pragma omp taskwait
#else
  CHECK_EQ(omp_target_memcpy(back, d, N * sizeof(int), 0, 0, host, dev), 0);
#endif
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= back[i] == 2 * (7 + i);
  CHECK(ok);

  /* 2. a 3x4 block of a 6x8 host matrix to the device and back (async). */
  static double m[ROWS][COLS], mb[ROWS][COLS];
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) m[r][c] = r * 100 + c;
  double *dm = (double *)omp_target_alloc(sizeof m, dev);
  size_t volume[2] = {3, 4}, off[2] = {2, 3}, dims[2] = {ROWS, COLS};
#if HAS_ASYNC
  CHECK_EQ(omp_target_memcpy_rect_async(dm, m, sizeof(double), 2, volume, off, off, dims, dims,
                                        dev, host, 0, NULL), 0);
#pragma omp taskwait
  CHECK_EQ(omp_target_memcpy_rect_async(mb, dm, sizeof(double), 2, volume, off, off, dims, dims,
                                        host, dev, 0, NULL), 0);
#pragma omp taskwait
#else
  CHECK_EQ(omp_target_memcpy_rect(dm, m, sizeof(double), 2, volume, off, off, dims, dims, dev,
                                  host), 0);
  CHECK_EQ(omp_target_memcpy_rect(mb, dm, sizeof(double), 2, volume, off, off, dims, dims, host,
                                  dev), 0);
#endif
  CHECK(mb[2][3] == 203.0 && mb[4][6] == 406.0 && mb[0][0] == 0.0 && mb[5][7] == 0.0);
  omp_target_free(dm, dev);

#if HAS_ASYNC
  /* 3. fill device memory (OpenMP 6.0). */
  omp_target_memset(d, 0, N * sizeof(int), dev);
  omp_target_memset_async(d, 0xff, 4 * sizeof(int), dev, 0, NULL);
#pragma omp taskwait
  CHECK_EQ(omp_target_memcpy(back, d, N * sizeof(int), 0, 0, host, dev), 0);
  CHECK(back[0] == -1 && back[3] == -1 && back[4] == 0 && back[N - 1] == 0);
#endif
  omp_target_free(d, dev);

#if __clang_major__ >= 16 /* LLVM 14's libomptarget lacks it */
  /* 4. where a host pointer is mapped. */
#pragma omp target data map(to : h)
  {
    CHECK(omp_get_mapped_ptr(h, dev) != NULL);
    CHECK(omp_get_mapped_ptr(h, host) == h);
  }
  CHECK(omp_get_mapped_ptr(back, dev) == NULL);
#endif

  /* 5. host and shared memory: one pointer for host code and kernels. */
  int *shared = (int *)llvm_omp_target_alloc_shared(N * sizeof(int), dev);
  int *pinned = (int *)llvm_omp_target_alloc_host(N * sizeof(int), dev);
  int *devmem = (int *)llvm_omp_target_alloc_device(N * sizeof(int), dev);
  CHECK(shared != NULL && pinned != NULL && devmem != NULL);
  if (shared && pinned && devmem) {
    for (int i = 0; i < N; i++) {
      shared[i] = i;
      pinned[i] = 3 * i;
    }
#pragma omp target is_device_ptr(shared, pinned, devmem)
    for (int i = 0; i < N; i++) {
      devmem[i] = shared[i] + pinned[i];
      shared[i] = devmem[i] * 10;
    }
    ok = 1;
    for (int i = 0; i < N; i++) ok &= shared[i] == 40 * i;
    CHECK(ok);
  }
#if __clang_major__ >= 16
  llvm_omp_target_free_shared(shared, dev);
  llvm_omp_target_free_host(pinned, dev);
  llvm_omp_target_free_device(devmem, dev);
#else /* LLVM 14 has no llvm_omp_target_free_*: omp_target_free frees them */
  omp_target_free(shared, dev);
  omp_target_free(pinned, dev);
  omp_target_free(devmem, dev);
#endif
  return check_finish();
}
/* mpi-skip: host or shared memory (llvm_omp_target_alloc_host/shared, omp_alloc's host and shared kinds), which a remote device has none of */
