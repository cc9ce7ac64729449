/* target_teams_loop_O0.c - target teams loop (OpenMP 5.0 loop construct).
 * versions: 16 19 22
 * cflags: -O0 */
#include "check.h"

int main(void) {
  int a[300];
  for (int i = 0; i < 300; i++) a[i] = i;
#pragma omp target teams loop map(tofrom : a)
  for (int i = 0; i < 300; i++) a[i] = 3 * a[i] + 1;
  for (int i = 0; i < 300; i++) CHECK_EQ(a[i], 3 * i + 1);
  return check_finish();
}
