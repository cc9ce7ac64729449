/* defaultmap_tofrom_scalar.c - defaultmap(tofrom:scalar) makes an implicit
 * scalar come back (it is firstprivate by default). */
#include "check.h"

int main(void) {
  int x = 1, y = 1;
#pragma omp target defaultmap(tofrom : scalar)
  x = 42;
#pragma omp target
  y = 42;
  CHECK_EQ(x, 42);
  CHECK_EQ(y, 1);
  return check_finish();
}
