/* is_device_ptr_combined.c - is_device_ptr on a combined construct with
 * a reduction, device buffer from omp_target_alloc. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int n = 1000;
  long *d = omp_target_alloc(n * sizeof(long), dev);
  long s = 0;
#pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < n; i++) d[i] = i;
#pragma omp target teams distribute parallel for is_device_ptr(d) reduction(+ : s)
  for (int i = 0; i < n; i++) s += d[i];
  CHECK_EQ(s, 999L * 1000 / 2);
  omp_target_free(d, dev);
  return check_finish();
}
