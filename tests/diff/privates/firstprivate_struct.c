/* firstprivate_struct.c - firstprivate of a struct with an array member. */
#include "check.h"

struct conf { int n; double w[4]; };

int main(void) {
  struct conf c = {4, {0.5, 1.5, 2.5, 3.5}};
  double s = 0;
#pragma omp target firstprivate(c) map(tofrom : s)
  {
    for (int i = 0; i < c.n; i++) s += c.w[i];
    c.n = 0;
  }
  CHECK(s == 8.0);
  CHECK_EQ(c.n, 4);
  return check_finish();
}
