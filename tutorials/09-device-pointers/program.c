/* 09-device-pointers/program.c - device addresses in host code.
 * info: 0x29
 * cflags: -fopenmp-version=51
 * 1. use_device_ptr(p): inside `target data`, p is the device address of
 *    what p points to (p must be mapped), to hand to code that takes device
 *    pointers; is_device_ptr(d) says a region's pointer already holds a
 *    device address: pass it as is, map nothing.
 * 2. use_device_addr(a) / has_device_addr(a): the same for a variable or
 *    array itself rather than a pointer's value. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static void scale_on_device(double *dev_v, int n) { /* takes a device pointer */
#pragma omp target is_device_ptr(dev_v)
  for (int i = 0; i < n; i++) dev_v[i] *= 2;
}

int main(void) {
  int n = 8, ok = 1;
  double *v = malloc(n * sizeof *v);
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target data map(tofrom : v[0:n])
  {
#pragma omp target data use_device_ptr(v)
    scale_on_device(v, n); /* here v is the device address */
  }
  printf("after use_device_ptr:  v[7] = %g (14)\n", v[7]);
  ok = ok && v[7] == 14;

  int a[4] = {1, 2, 3, 4};
#pragma omp target data map(tofrom : a)
  {
#pragma omp target data use_device_addr(a)
    {
#pragma omp target has_device_addr(a)
      a[3] = 40;
    }
  }
  printf("after use_device_addr: a[3] = %d (40)\n", a[3]);
  ok = ok && a[3] == 40;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  return !ok;
}
