/* hold_disassociate.c - omp_target_disassociate_ptr must fail while an
 * ompx_hold reference is held (issue item 11; LLVM returns non-zero).
 * versions: 14 15 16 19 22
 */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[8] = {0};
  int *d = omp_target_alloc(sizeof a, dev);
  CHECK_EQ(omp_target_associate_ptr(a, d, sizeof a, 0, dev), 0);
  int rc = 0;
#pragma omp target data map(ompx_hold, tofrom : a)
  rc = omp_target_disassociate_ptr(a, dev);
  CHECK(rc != 0);
  CHECK_EQ(omp_target_disassociate_ptr(a, dev), 0);
  omp_target_free(d, dev);
  return check_finish();
}
