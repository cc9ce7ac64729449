/* associate_ptr.c - omp_target_associate_ptr makes a host array use a
 * device buffer; a kernel maps the array and finds it. */
#include <omp.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int a[50];
  for (int i = 0; i < 50; i++) a[i] = i;
  int *d = omp_target_alloc(sizeof a, dev);
  CHECK_EQ(omp_target_associate_ptr(a, d, sizeof a, 0, dev), 0);
#pragma omp target update to(a)
#pragma omp target map(tofrom : a)
  for (int i = 0; i < 50; i++) a[i] += 1;
  /* associated: the tofrom above does not copy back (refcount infinite) */
#pragma omp target update from(a)
  for (int i = 0; i < 50; i++) CHECK_EQ(a[i], i + 1);
  CHECK_EQ(omp_target_disassociate_ptr(a, dev), 0);
  omp_target_free(d, dev);
  return check_finish();
}
