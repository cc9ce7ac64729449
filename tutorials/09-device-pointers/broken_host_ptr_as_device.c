/* 09-device-pointers/broken_host_ptr_as_device.c - is_device_ptr with a
 * host pointer.
 * info: 0x29
 * expect-exit: 1
 * expect: not device memory|host address
 * is_device_ptr promises that the pointer already holds a device address,
 * so the runtime passes it unchanged and maps nothing. Here it is a host
 * malloc: the kernel reads host memory that the device cannot reach. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 8;
  double *v = malloc(n * sizeof *v);
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target is_device_ptr(v)
  for (int i = 0; i < n; i++) v[i] *= 2;
  printf("v[7] = %g (14)\n", v[7]);
  int ok = v[7] == 14;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  return !ok;
}
