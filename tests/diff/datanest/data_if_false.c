/* data_if_false.c - target data if(0) maps nothing; the kernel inside maps
 * on its own. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[8] = {0}, on = 0;
#pragma omp target data map(tofrom : a) if (on)
  {
    CHECK(!omp_target_is_present(a, dev));
#pragma omp target map(tofrom : a)
    a[1] = 1;
    CHECK_EQ(a[1], 1);
  }
  return check_finish();
}
