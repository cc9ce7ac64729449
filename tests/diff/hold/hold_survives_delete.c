/* hold_survives_delete.c - ompx_hold keeps the mapping across exit data
 * map(delete:) until its own region ends (LLVM extension).
 * versions: 14 15 16 19 22 */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[8] = {0};
#pragma omp target data map(ompx_hold, tofrom : a)
  {
#pragma omp target exit data map(delete : a)
    CHECK(omp_target_is_present(a, dev));
#pragma omp target
    a[0] = 5;
  }
  CHECK(!omp_target_is_present(a, dev));
  CHECK_EQ(a[0], 5);
  return check_finish();
}
