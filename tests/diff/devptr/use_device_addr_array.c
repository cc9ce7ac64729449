/* use_device_addr_array.c - use_device_addr of an array mapped by an outer
 * target data (issue item 4 with clang 13-16). */
#include "check.h"

int main(void) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = i;
  int *dev = 0;
#pragma omp target data map(tofrom : a)
  {
#pragma omp target data use_device_addr(a)
    dev = &a[0];
#pragma omp target is_device_ptr(dev)
    for (int i = 0; i < 32; i++) dev[i] *= 2;
  }
  for (int i = 0; i < 32; i++) CHECK_EQ(a[i], 2 * i);
  return check_finish();
}
