/* some_members.c - only two members of a larger struct mapped. */
#include "check.h"

struct rec { int a; double pad[100]; int b; char tail[40]; int c; };

int main(void) {
  struct rec r = {0};
  r.a = 1;
  r.c = 3;
#pragma omp target map(to : r.a) map(from : r.c)
  r.c = r.a + 10;
  CHECK_EQ(r.c, 11);
  CHECK_EQ(r.a, 1);
  return check_finish();
}
