/* hold_target.c - ompx_hold on a target construct itself: normal result.
 * versions: 14 15 16 19 22 */
#include "check.h"

int main(void) {
  int a[8];
  for (int i = 0; i < 8; i++) a[i] = i;
#pragma omp target map(ompx_hold, tofrom : a)
  for (int i = 0; i < 8; i++) a[i] *= 7;
  for (int i = 0; i < 8; i++) CHECK_EQ(a[i], 7 * i);
  return check_finish();
}
