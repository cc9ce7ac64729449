/* lastprivate_combined.c - lastprivate on a combined construct.
 * xfail: 22: clang 22 passes `last` as a literal (type 0x320) with no tofrom map, as clang 13-19 do: a compiler gap no runtime can make up for (OpenMP 5.0 2.19.4.5) */
#include "check.h"

int main(void) {
  int last = -1;
#pragma omp target teams distribute parallel for lastprivate(last)
  for (int i = 0; i < 100; i++) last = i * 2;
  CHECK_EQ(last, 198);
  return check_finish();
}
