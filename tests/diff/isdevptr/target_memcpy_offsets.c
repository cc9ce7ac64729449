/* target_memcpy_offsets.c - omp_target_memcpy with offsets both ways. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int src[20], dst[20] = {0};
  for (int i = 0; i < 20; i++) src[i] = i + 1;
  int *d = omp_target_alloc(40 * sizeof(int), dev);
  CHECK_EQ(omp_target_memcpy(d, src, 20 * sizeof(int), 10 * sizeof(int), 0, dev, host), 0);
#pragma omp target is_device_ptr(d)
  for (int i = 10; i < 30; i++) d[i] *= 2;
  CHECK_EQ(omp_target_memcpy(dst, d, 10 * sizeof(int), 0, 15 * sizeof(int), host, dev), 0);
  for (int i = 0; i < 10; i++) CHECK_EQ(dst[i], 2 * (i + 6));
  omp_target_free(d, dev);
  return check_finish();
}
