/* freed_device_addr_mapped.c - a block of omp_target_alloc, freed, then its
 * address mapped as if it were host memory (the program forgot it is device
 * memory, and that it is gone). Where host and device share memory the copy
 * reads freed heap memory and goes unnoticed; on simtarget the host address
 * is device memory: the host must not crash, the map must be refused with a
 * message naming the variable.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: is device memory of device 0.*copying buf\[0:64\] to the device failed */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int *buf = omp_target_alloc(64 * sizeof(int), dev);
  omp_target_free(buf, dev);
  int sum = 0;
#pragma omp target map(to : buf[0:64]) map(tofrom : sum)
  for (int i = 0; i < 64; i++) sum += buf[i];
  printf("sum %d\n", sum);
  return 3;
}
