/* declare_target_ptr_global.c - a declare target global pointer set on the
 * device to device memory from omp_target_alloc. */
#include <omp.h>
#include "check.h"

int *dptr;
#pragma omp declare target to(dptr)

int main(void) {
  int dev = omp_get_default_device();
  int *mem = omp_target_alloc(10 * sizeof(int), dev);
  int sum = 0;
#pragma omp target is_device_ptr(mem)
  dptr = mem;
#pragma omp target map(tofrom : sum)
  {
    for (int i = 0; i < 10; i++) dptr[i] = i;
    for (int i = 0; i < 10; i++) sum += dptr[i];
  }
  CHECK_EQ(sum, 45);
  omp_target_free(mem, dev);
  return check_finish();
}
