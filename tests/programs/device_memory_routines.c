/* device_memory_routines.c - an image whose device code refers to the
 * device memory routines loads and runs: a `declare target` region left
 * open around host helpers (as real programs do) compiles them for the
 * device too, so the image refers to omp_target_is_present, omp_target_alloc
 * and the other memory routines of LLVM 13's libomptarget (the newer ones:
 * device_memory_routines.cpp), which only the host calls.
 * cflags: -O2
 * expect: the program's kernels run (the image is not refused at load), the
 * host helpers that call the memory routines work on the host, and the
 * kernels see the mapped data. */
#include <omp.h>
#include <stddef.h>
#include "check.h"

#define N 128

#pragma omp declare target
double table[N];

/* A helper used on the host and in kernels (clang 15+ keep in the image only
 * what kernels reach): the memory routines run on the host only, which the
 * caller says (a value the compiler cannot fold, as in real programs). */
int memory_op(int on_host, int op, double *dev_buf, double *host_buf, size_t n,
              int dev) {
  if (!on_host)
    return -1; /* in a kernel: nothing to do */
  switch (op) {
  case 0:
    return omp_target_is_present(host_buf, dev);
  case 1:
    return omp_target_memcpy(dev_buf, host_buf, n * sizeof(double), 0, 0, dev,
                             omp_get_initial_device());
  case 2:
    return omp_target_associate_ptr(host_buf, dev_buf, n * sizeof(double), 0,
                                    dev);
  case 3:
    return omp_target_disassociate_ptr(host_buf, dev);
  case 4:
    omp_target_free(dev_buf, dev);
    return 0;
  }
  return -2;
}

double *device_buffer(int on_host, size_t n, int dev) {
  return on_host ? (double *)omp_target_alloc(n * sizeof(double), dev) : NULL;
}

double scaled(double x) { return 3.0 * x; }
#pragma omp end declare target

int main(void) {
  int dev = omp_get_default_device();
  for (int i = 0; i < N; i++)
    table[i] = i;
#pragma omp target update to(table)
  CHECK_EQ(memory_op(1, 0, NULL, table, N, dev), 1);

  double host[N], *buf = device_buffer(1, N, dev);
  CHECK(buf != NULL);
  for (int i = 0; i < N; i++)
    host[i] = 2.0 * i;
  CHECK_EQ(memory_op(1, 1, buf, host, N, dev), 0);
  double sum = 0;
  int in_kernel = 0, on_host = 0;
#pragma omp target is_device_ptr(buf) map(tofrom : sum) map(from : in_kernel) \
    map(to : on_host)
  {
    /* the helpers run in the kernel too, without the routines */
    in_kernel = memory_op(on_host, 0, buf, table, N, dev) +
                (device_buffer(on_host, 1, dev) == NULL ? 10 : 0);
    for (int i = 0; i < N; i++)
      sum += scaled(buf[i]) + table[i];
  }
  CHECK(sum == 7.0 * (N - 1) * N / 2);
  CHECK_EQ(in_kernel, 9);

  double other[N];
  CHECK_EQ(memory_op(1, 2, buf, other, N, dev), 0);
  CHECK_EQ(memory_op(1, 0, NULL, other, N, dev), 1);
  CHECK_EQ(memory_op(1, 3, NULL, other, N, dev), 0);
  CHECK_EQ(memory_op(1, 4, buf, NULL, N, dev), 0);
  return check_finish();
}
/* mpi-skip: host or shared memory (llvm_omp_target_alloc_host/shared, omp_alloc's host and shared kinds), which a remote device has none of */
