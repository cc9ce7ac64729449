/* release_refcount.c - two enter data, one release: still present; the
 * second release removes it. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[10] = {0};
#pragma omp target enter data map(to : a)
#pragma omp target enter data map(to : a)
#pragma omp target exit data map(release : a)
  CHECK(omp_target_is_present(a, dev));
#pragma omp target exit data map(release : a)
  CHECK(!omp_target_is_present(a, dev));
  return check_finish();
}
