/* delete_forces.c - delete removes the mapping whatever its count. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  double a[10] = {0};
#pragma omp target enter data map(to : a)
#pragma omp target enter data map(to : a)
#pragma omp target enter data map(to : a)
#pragma omp target exit data map(delete : a)
  CHECK(!omp_target_is_present(a, dev));
  return check_finish();
}
