/* partly_present_exit.c - target exit data of an item only partly present
 * (issue item 8): LLVM 19 skips it without error; the mapping stays.
 */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[40] = {0};
#pragma omp target enter data map(to : a[0:10])
#pragma omp target exit data map(from : a[0:20])
  CHECK(omp_target_is_present(&a[0], dev));
#pragma omp target exit data map(delete : a[0:10])
  return check_finish();
}
