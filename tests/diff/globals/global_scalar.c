/* global_scalar.c - a file-scope scalar that is not declare target is
 * firstprivate when not mapped (OpenMP 5.0 2.19.7: scalars are
 * firstprivate by default, globals included): the host copy stays 5.
 * Mapped explicitly, it comes back. */
#include "check.h"

int gcount = 5;
static double gscale = 1.5;

int main(void) {
#pragma omp target
  gcount += 10;
#pragma omp target map(tofrom : gscale)
  gscale *= 2;
  CHECK_EQ(gcount, 5);
  CHECK(gscale == 3.0);
  return check_finish();
}
