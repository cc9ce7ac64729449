// device_memory_routines.cpp - a C++ class whose member functions, inside a
// `declare target` region left open, call the newer device memory routines
// (omp_target_memset, omp_get_mapped_ptr, omp_target_memcpy_rect,
// llvm_omp_target_alloc_shared and its free) when they run on the host; the
// kernels call them too (clang keeps in the image what kernels reach), where
// they skip the routines: the image refers to the routines, and must load.
// versions: 19 22
// cflags: -O2
// expect: the kernels run; on the host the methods allocate, clear, copy and
// look up device memory correctly; in kernels they do nothing.
#include <omp.h>
#include <stddef.h>
#include "check.h"

extern "C" void *llvm_omp_target_alloc_shared(size_t size, int device_num);
extern "C" void llvm_omp_target_free_shared(void *ptr, int device_num);

#pragma omp declare target
int on_host_flag; // 1 on the host (set by main), 0 in the device copy

class DeviceMemory {
public:
  static bool clear(int *p, size_t n, int dev) {
    return !on_host_flag || omp_target_memset(p, 0, n * sizeof(int), dev) == p;
  }
  static int upload_rows(int *dst, const int *host, size_t rows, size_t cols, int dev) {
    if (!on_host_flag)
      return 0;
    size_t volume[2] = {rows, cols}, offsets[2] = {0, 0}, dims[2] = {rows, cols};
    return omp_target_memcpy_rect(dst, host, sizeof(int), 2, volume, offsets, offsets, dims,
                                  dims, dev, omp_get_initial_device());
  }
  static bool mapped(const void *p, int dev) {
    return !on_host_flag || omp_get_mapped_ptr(p, dev) != nullptr;
  }
  static int *shared_int(int dev) {
    return on_host_flag ? static_cast<int *>(llvm_omp_target_alloc_shared(sizeof(int), dev))
                        : nullptr;
  }
  static void free_shared(int *p, int dev) {
    if (on_host_flag)
      llvm_omp_target_free_shared(p, dev);
  }
};

static int twice(int x) { return 2 * x; }
#pragma omp end declare target

int main() {
  on_host_flag = 1;
  const int dev = omp_get_default_device();
  const size_t rows = 4, cols = 8, n = rows * cols;
  int *d = static_cast<int *>(omp_target_alloc(n * sizeof(int), dev));
  CHECK(d != nullptr);
  CHECK(DeviceMemory::clear(d, n, dev));
  int host[n];
  for (size_t i = 0; i < n; i++)
    host[i] = static_cast<int>(i);
  CHECK_EQ(DeviceMemory::upload_rows(d, host, rows, cols, dev), 0);

  long sum = 0;
  int skipped = 0;
#pragma omp target is_device_ptr(d) map(tofrom : sum) map(from : skipped)
  {
    // the same methods in a kernel: they leave the routines alone
    skipped = DeviceMemory::clear(d, n, dev) + DeviceMemory::mapped(d, dev) +
              (DeviceMemory::upload_rows(d, d, rows, cols, dev) == 0) +
              (DeviceMemory::shared_int(dev) == nullptr);
    DeviceMemory::free_shared(nullptr, dev);
    for (size_t i = 0; i < n; i++)
      sum += twice(d[i]);
  }
  CHECK_EQ(sum, (long)(n - 1) * n);
  CHECK_EQ(skipped, 4);

  int table[16] = {0};
#pragma omp target data map(tofrom : table)
  CHECK(DeviceMemory::mapped(table, dev));

  int *shared = DeviceMemory::shared_int(dev);
  CHECK(shared != nullptr);
  if (shared) {
    *shared = 20;
#pragma omp target is_device_ptr(shared)
    *shared = twice(*shared) + 2;
    CHECK_EQ(*shared, 42);
    DeviceMemory::free_shared(shared, dev);
  }
  omp_target_free(d, dev);
  return check_finish();
}
/* mpi-skip: host or shared memory (llvm_omp_target_alloc_host/shared, omp_alloc's host and shared kinds), which a remote device has none of */
