/* update_struct_member.c - target update of one struct member. */
#include "check.h"

struct st { int a; int b[4]; int c; };

int main(void) {
  struct st s = {1, {2, 2, 2, 2}, 3};
#pragma omp target data map(to : s)
  {
#pragma omp target
    { s.a = 10; s.b[1] = 20; s.c = 30; }
#pragma omp target update from(s.b)
  }
  CHECK_EQ(s.a, 1);
  CHECK_EQ(s.b[1], 20);
  CHECK_EQ(s.c, 3);
  return check_finish();
}
