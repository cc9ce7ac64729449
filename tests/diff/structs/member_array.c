/* member_array.c - a struct with an array member, mapped whole. */
#include "check.h"

struct grid { int w, h; float cells[64]; };

int main(void) {
  struct grid g = {8, 8, {0}};
#pragma omp target map(tofrom : g)
  for (int i = 0; i < g.w * g.h; i++) g.cells[i] = (float)i;
  for (int i = 0; i < 64; i++) CHECK(g.cells[i] == (float)i);
  return check_finish();
}
