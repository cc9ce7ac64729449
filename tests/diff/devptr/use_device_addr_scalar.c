/* use_device_addr_scalar.c - use_device_addr of a scalar; the device address
 * is handed to a kernel through is_device_ptr. */
#include "check.h"

int main(void) {
  double x = 2.5;
  double *dx = 0;
#pragma omp target enter data map(to : x)
#pragma omp target data use_device_addr(x)
  dx = &x;
#pragma omp target is_device_ptr(dx)
  *dx *= 4;
#pragma omp target exit data map(from : x)
  CHECK(x == 10.0);
  return check_finish();
}
