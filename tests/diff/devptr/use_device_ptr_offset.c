/* use_device_ptr_offset.c - p points into the middle of an array mapped
 * whole: use_device_ptr(p) translates it by its offset, and a combined
 * construct writes through the translated pointer. */
#include "check.h"

int main(void) {
  int a[100];
  for (int i = 0; i < 100; i++) a[i] = i;
  int *p = &a[40];
#pragma omp target data map(tofrom : a)
  {
    int *mid = 0;
#pragma omp target data use_device_ptr(p)
    mid = p;
#pragma omp target teams distribute parallel for is_device_ptr(mid)
    for (int i = 0; i < 10; i++) mid[i] = -mid[i];
  }
  for (int i = 0; i < 100; i++) CHECK_EQ(a[i], (i >= 40 && i < 50) ? -i : i);
  return check_finish();
}
