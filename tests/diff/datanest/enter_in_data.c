/* enter_in_data.c - enter data inside a target data region extends the
 * lifetime past the region's end. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[8] = {0};
#pragma omp target data map(to : a)
  {
#pragma omp target enter data map(to : a)
  }
  CHECK(omp_target_is_present(a, dev));
#pragma omp target
  a[3] = 3;
#pragma omp target exit data map(from : a)
  CHECK_EQ(a[3], 3);
  CHECK(!omp_target_is_present(a, dev));
  return check_finish();
}
