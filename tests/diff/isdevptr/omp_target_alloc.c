/* omp_target_alloc.c - device memory from omp_target_alloc used through
 * is_device_ptr; copied back with omp_target_memcpy. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int n = 128, h[128];
  int *d = omp_target_alloc(n * sizeof(int), dev);
  CHECK(d != NULL);
#pragma omp target is_device_ptr(d)
  for (int i = 0; i < n; i++) d[i] = 3 * i;
  CHECK_EQ(omp_target_memcpy(h, d, n * sizeof(int), 0, 0, host, dev), 0);
  for (int i = 0; i < n; i++) CHECK_EQ(h[i], 3 * i);
  omp_target_free(d, dev);
  return check_finish();
}
