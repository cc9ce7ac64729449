/* member_ptr.c - s.p[0:n]: a member pointer's pointee, the struct implied. */
#include <stdlib.h>
#include "check.h"

struct buf { int n; int *p; };

int main(void) {
  struct buf b;
  b.n = 77;
  b.p = malloc(b.n * sizeof *b.p);
  for (int i = 0; i < b.n; i++) b.p[i] = i;
#pragma omp target map(tofrom : b.p[0:b.n])
  for (int i = 0; i < 77; i++) b.p[i] += 5;
  for (int i = 0; i < b.n; i++) CHECK_EQ(b.p[i], i + 5);
  free(b.p);
  return check_finish();
}
