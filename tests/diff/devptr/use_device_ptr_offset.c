/* use_device_ptr_offset.c - p points into the middle of a mapped section:
 * use_device_ptr(p) translates it (issue item 9 when the section starts
 * past p's target). */
#include "check.h"

int main(void) {
  int a[100];
  for (int i = 0; i < 100; i++) a[i] = i;
  int *p = &a[40];
  int got = -1;
#pragma omp target data map(tofrom : a[0:100])
  {
    int *dp = 0;
#pragma omp target data use_device_ptr(p)
    dp = p;
#pragma omp target is_device_ptr(dp) map(from : got)
    got = dp[2];
  }
  CHECK_EQ(got, 42);
  return check_finish();
}
