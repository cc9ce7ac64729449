/* use_device_addr_section.c - use_device_addr of an array section's base
 * element (OpenMP 5.1: a[lo] gives the device address of a[lo]).
 * versions: 16 19 22
 * cflags: -fopenmp-version=51
 */
#include "check.h"

int main(void) {
  int a[64];
  for (int i = 0; i < 64; i++) a[i] = i;
  int got = -1;
#pragma omp target data map(tofrom : a[8:16])
  {
    int *d = 0;
#pragma omp target data use_device_addr(a[8:16])
    d = &a[8];
#pragma omp target is_device_ptr(d) map(from : got)
    got = d[3];
  }
  CHECK_EQ(got, 11);
  return check_finish();
}
