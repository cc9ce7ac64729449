/* firstprivate_array_teams_O2.c - firstprivate of an array on target teams
 * distribute at -O2 (issue item 5: the kernel reads address 0x0).
 * cflags: -O2 */
#include "check.h"

int main(void) {
  int coef[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int out[256];
#pragma omp target teams distribute firstprivate(coef) map(from : out)
  for (int i = 0; i < 256; i++) out[i] = coef[i % 8] * i;
  for (int i = 0; i < 256; i++) CHECK_EQ(out[i], (i % 8 + 1) * i);
  return check_finish();
}
