/* 10-memory-routines-devices/broken_wrong_device.c - device memory used on
 * the device it does not belong to.
 * info: 0x00
 * env: SIMDEVICE_NUM_DEVICES=2
 * expect-exit: 1
 * expect: omptarget
 * d was allocated on device 1 but the region runs on device 0, where that
 * address means nothing. Each simdevice device is its own process, so the
 * kernel faults; on one shared address space it would silently work. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int *d = omp_target_alloc(4 * sizeof(int), 1);
  if (!d) return 2;
#pragma omp target is_device_ptr(d) device(0)
  for (int i = 0; i < 4; i++) d[i] = i;
  int r[4] = {0};
  omp_target_memcpy(r, d, sizeof r, 0, 0, omp_get_initial_device(), 1);
  printf("r[3] = %d (3)\n", r[3]);
  omp_target_free(d, 1);
  printf("%s\n", r[3] == 3 ? "PASS" : "FAIL");
  return r[3] != 3;
}
