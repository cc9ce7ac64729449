/* has_device_addr_array.c - has_device_addr on an array whose device copy
 * exists (OpenMP 5.1): the kernel uses it without a map.
 * versions: 16 19 22
 * cflags: -fopenmp-version=51
 * clang 16 maps the item as TO|TARGET_PARAM, 8 bytes, at its device address
 * (LLVM 16 copies those 8 bytes and fails): simtarget uses the address as is. */
#include "check.h"

int main(void) {
  int a[40];
  for (int i = 0; i < 40; i++) a[i] = i;
#pragma omp target data map(tofrom : a)
  {
#pragma omp target data use_device_addr(a)
    {
#pragma omp target has_device_addr(a)
      for (int i = 0; i < 40; i++) a[i] += 2;
    }
  }
  for (int i = 0; i < 40; i++) CHECK_EQ(a[i], i + 2);
  return check_finish();
}
