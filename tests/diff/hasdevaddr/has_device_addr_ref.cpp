/* has_device_addr_ref.cpp - has_device_addr of a scalar reference to
 * device memory (a C++ reference bound to *omp_target_alloc).
 * versions: 16 19 22
 * cflags: -fopenmp-version=51
 * clang 16 maps the item as TO|TARGET_PARAM, 8 bytes, at its device address
 * (LLVM 16 copies those 8 bytes and fails): simtarget uses the address as is. */
#include <omp.h>
#include "check.h"

int main() {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int *d = static_cast<int *>(omp_target_alloc(sizeof(int), dev));
  int &r = *d;
#pragma omp target has_device_addr(r)
  r = 77;
  int h = 0;
  CHECK_EQ(omp_target_memcpy(&h, d, sizeof(int), 0, 0, host, dev), 0);
  CHECK_EQ(h, 77);
  omp_target_free(d, dev);
  return check_finish();
}
