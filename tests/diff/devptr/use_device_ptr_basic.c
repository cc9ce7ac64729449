/* use_device_ptr_basic.c - use_device_ptr gives the device address, which a
 * kernel then takes through is_device_ptr. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 64;
  int *p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = i;
#pragma omp target data map(tofrom : p[0:n])
  {
    int *dp = NULL;
#pragma omp target data use_device_ptr(p)
    dp = p;
    CHECK(dp != NULL);
#pragma omp target is_device_ptr(dp)
    for (int i = 0; i < n; i++) dp[i] += 10;
  }
  for (int i = 0; i < n; i++) CHECK_EQ(p[i], i + 10);
  free(p);
  return check_finish();
}
