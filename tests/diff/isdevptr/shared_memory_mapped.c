/* shared_memory_mapped.c - memory from llvm_omp_target_alloc_shared is host
 * memory as well: mapping a section of it copies it like any host object
 * (on simdevice it lies inside the device's address range, where other
 * addresses are refused as device memory).
 * versions: 16 19 22
 * expect: the kernel doubles the mapped copy, the host sees it after */
#include <omp.h>
#include "check.h"

void *llvm_omp_target_alloc_shared(size_t size, int device_num);
void llvm_omp_target_free_shared(void *ptr, int device_num);

int main(void) {
  int dev = omp_get_default_device();
  int n = 256;
  int *sh = llvm_omp_target_alloc_shared(n * sizeof(int), dev);
  CHECK(sh != NULL);
  if (!sh)
    return check_finish();
  for (int i = 0; i < n; i++) sh[i] = i;
#pragma omp target map(tofrom : sh[0:n])
  for (int i = 0; i < n; i++) sh[i] *= 2;
  for (int i = 0; i < n; i++) CHECK_EQ(sh[i], 2 * i);
  llvm_omp_target_free_shared(sh, dev);
  return check_finish();
}
/* mpi-skip: shared memory, which a remote device has none of */
