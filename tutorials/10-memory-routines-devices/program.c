/* 10-memory-routines-devices/program.c - device memory without map
 * clauses, and more than one device.
 * info: 0x29
 * env: SIMDEVICE_NUM_DEVICES=2
 * omp_target_alloc gives device memory, omp_target_memcpy copies between
 * any two of host and devices, omp_target_associate_ptr makes device
 * memory the mapping of a host object (so map clauses find it present),
 * and device(d) picks the device. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int host_dev = omp_get_initial_device(), ndev = omp_get_num_devices();
  int ok = ndev >= 2;
  printf("%d devices; the host is device number %d\n", ndev, host_dev);
  int last = ndev - 1;
  int src[4] = {1, 2, 3, 4}, dst[4] = {0};
  int *d0 = omp_target_alloc(sizeof src, 0);
  int *d1 = omp_target_alloc(sizeof src, last);
  if (!d0 || !d1) return 2;
  /* host -> device 0 -> device `last` -> host */
  ok = ok && !omp_target_memcpy(d0, src, sizeof src, 0, 0, 0, host_dev);
  ok = ok && !omp_target_memcpy(d1, d0, sizeof src, 0, 0, last, 0);
#pragma omp target is_device_ptr(d1) device(last)
  for (int i = 0; i < 4; i++) d1[i] *= 10;
  ok = ok && !omp_target_memcpy(dst, d1, sizeof dst, 0, 0, host_dev, last);
  printf("dst[3] = %d (40), copied through devices 0 and %d\n", dst[3], last);
  ok = ok && dst[3] == 40;

  /* associate: d0 becomes the device copy of src on device 0 */
  ok = ok && !omp_target_associate_ptr(src, d0, sizeof src, 0, 0);
#pragma omp target map(tofrom : src) device(0) /* present: nothing copied */
  src[0] = 100;
  printf("after associate: host src[0] = %d (1: present, not copied back), "
         "present = %d\n", src[0], omp_target_is_present(src, 0));
  ok = ok && src[0] == 1;
  ok = ok && !omp_target_disassociate_ptr(src, 0);
  omp_target_free(d0, 0);
  omp_target_free(d1, last);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
