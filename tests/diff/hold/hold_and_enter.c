/* hold_and_enter.c - a hold reference and a dynamic reference: the data
 * goes when both are gone.
 * versions: 14 15 16 19 22 */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[8] = {0};
#pragma omp target enter data map(to : a)
#pragma omp target data map(ompx_hold, tofrom : a)
  {
#pragma omp target exit data map(release : a)
    CHECK(omp_target_is_present(a, dev));
  }
  CHECK(!omp_target_is_present(a, dev));
  return check_finish();
}
