/* mapper_partial_members.c - a mapper that maps only some members; the
 * others keep their host values on return. */
#include "check.h"

struct cfg { int in; int scratch[64]; int out; };
#pragma omp declare mapper(struct cfg c) map(to : c.in) map(from : c.out)

int main(void) {
  struct cfg c;
  c.in = 6;
  c.out = 0;
  c.scratch[0] = 99;
#pragma omp target map(tofrom : c)
  c.out = c.in * 7;
  CHECK_EQ(c.out, 42);
  CHECK_EQ(c.scratch[0], 99);
  return check_finish();
}
