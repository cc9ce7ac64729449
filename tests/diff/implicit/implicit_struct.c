/* implicit_struct.c - a struct used without a map clause is tofrom. */
#include "check.h"

struct acc { int n; long total; };

int main(void) {
  struct acc s = {10, 0};
#pragma omp target
  for (int i = 0; i < s.n; i++) s.total += i;
  CHECK_EQ(s.total, 45);
  return check_finish();
}
