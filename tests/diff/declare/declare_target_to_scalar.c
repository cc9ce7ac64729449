/* declare_target_to_scalar.c - a declare target to scalar, initialized
 * statically: the device copy starts with the initial value. */
#include "check.h"

int limit = 17;
#pragma omp declare target to(limit)

int main(void) {
  int got = 0;
#pragma omp target map(from : got)
  got = limit + 1;
  CHECK_EQ(got, 18);
  return check_finish();
}
