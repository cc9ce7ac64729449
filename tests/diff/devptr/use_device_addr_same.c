/* use_device_addr_same.c - map and use_device_addr of the same variable on
 * one target data (issue item 4: clang 13-16 map it with a base that is
 * already a device address). */
#include "check.h"

int main(void) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = i;
  int *dev = 0;
#pragma omp target data map(tofrom : a) use_device_addr(a)
  dev = &a[0];
  CHECK(dev != 0);
  for (int i = 0; i < 16; i++) CHECK_EQ(a[i], i);
  return check_finish();
}
