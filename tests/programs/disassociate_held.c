/* disassociate_held.c - omp_target_disassociate_ptr while the ompx_hold
 * count of the association is non-zero must fail (issue 13, item 11).
 * versions: 15 16 19 22
 * cflags: -fopenmp-extensions
 * expect: disassociate fails inside the ompx_hold data region and succeeds
 * after it.
 */
#include <omp.h>
#include "check.h"

#define N 16

int main(void) {
  int dev = omp_get_default_device();
  int h[N];
  for (int i = 0; i < N; i++)
    h[i] = i;
  int *d = omp_target_alloc(sizeof h, dev);
  CHECK(d != NULL);
  CHECK_EQ(omp_target_associate_ptr(h, d, sizeof h, 0, dev), 0);
#pragma omp target data map(ompx_hold, tofrom : h)
  {
    CHECK(omp_target_disassociate_ptr(h, dev) != 0);
    CHECK(omp_target_is_present(h, dev));
  }
  CHECK_EQ(omp_target_disassociate_ptr(h, dev), 0);
  CHECK(!omp_target_is_present(h, dev));
  omp_target_free(d, dev);
  return check_finish();
}
