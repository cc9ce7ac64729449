// use_device_ptr inside a data region: the device address as is_device_ptr.
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int *p = calloc(8, sizeof *p);
#pragma omp target data map(tofrom : p[0:8])
  {
#pragma omp target data use_device_ptr(p)
    {
#pragma omp target is_device_ptr(p)
      for (int i = 0; i < 8; i++) p[i] = i + 1;
    }
  }
  int ok = p[7] == 8;
  free(p);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
