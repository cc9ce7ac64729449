// omp_target_alloc memory used through is_device_ptr.
#include <omp.h>
#include <stdio.h>
int main(void) {
  int dev = omp_get_default_device(), r = 0;
  int *d = omp_target_alloc(4 * sizeof(int), dev);
#pragma omp target is_device_ptr(d) map(from : r)
  { d[2] = 21; r = d[2] * 2; }
  omp_target_free(d, dev);
  puts(r == 42 ? "PASS" : "FAIL");
  return r != 42;
}
