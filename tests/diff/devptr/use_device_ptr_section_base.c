/* use_device_ptr_section_base.c - p = a; only a[5:10] is mapped, then
 * use_device_ptr(p) (issue item 9): LLVM finds the mapping through the
 * section's base pointer and gives p's device address.
 */
#include "check.h"

int main(void) {
  int a[20];
  for (int i = 0; i < 20; i++) a[i] = i;
  int *p = a;
  int got = -1;
#pragma omp target data map(tofrom : p[5:10])
  {
    int *dp = 0;
#pragma omp target data use_device_ptr(p)
    dp = p;
#pragma omp target is_device_ptr(dp) map(from : got)
    got = dp[7];
  }
  CHECK_EQ(got, 7);
  return check_finish();
}
