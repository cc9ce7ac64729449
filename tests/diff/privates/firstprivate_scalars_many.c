/* firstprivate_scalars_many.c - many scalar arguments of mixed types. */
#include "check.h"

int main(void) {
  char c = 3; short s = 4; int i = 5; long l = 6; float f = 7.0f; double d = 8.0;
  unsigned long long u = 9; double out = 0;
#pragma omp target map(from : out)
  out = c + s + i + l + f + d + u;
  CHECK(out == 42.0);
  return check_finish();
}
