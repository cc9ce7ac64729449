/* device_ptr_in_struct.c - a device pointer carried in a firstprivate
 * struct is used as is (no translation). */
#include <omp.h>
#include "check.h"

struct dview { int n; double *d; };

int main(void) {
  int dev = omp_get_default_device();
  struct dview v = {16, omp_target_alloc(16 * sizeof(double), dev)};
  double sum = 0;
#pragma omp target firstprivate(v) map(tofrom : sum)
  {
    for (int i = 0; i < v.n; i++) v.d[i] = i;
    for (int i = 0; i < v.n; i++) sum += v.d[i];
  }
  CHECK(sum == 120.0);
  omp_target_free(v.d, dev);
  return check_finish();
}
