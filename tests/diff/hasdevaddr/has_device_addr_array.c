/* has_device_addr_array.c - has_device_addr on an array whose device copy
 * exists (OpenMP 5.1): the kernel uses it without a map.
 * versions: 16 19 22
 * cflags: -fopenmp-version=51
 * xfail: 16: issue 13 item 4 (clang 16 maps the item with a base that is already a device address; simtarget copies from it on the host and the host process segfaults; LLVM 16 fails without crashing) */
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
