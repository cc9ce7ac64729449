/* implicit_scalar_firstprivate.c - an unmapped scalar is firstprivate: the
 * device sees its value, the host keeps its own. */
#include "check.h"

int main(void) {
  int k = 9, out = 0;
#pragma omp target map(from : out)
  {
    out = k * 2;
    k = 1000;
  }
  CHECK_EQ(out, 18);
  CHECK_EQ(k, 9);
  return check_finish();
}
