/* declare_target_link.c - declare target link: the device reference is
 * bound when the variable is mapped. */
#include "check.h"

int big[1000];
#pragma omp declare target link(big)

int main(void) {
  for (int i = 0; i < 1000; i++) big[i] = i;
  long s = 0;
#pragma omp target map(to : big) map(tofrom : s)
  for (int i = 0; i < 1000; i++) s += big[i];
  CHECK_EQ(s, 999L * 1000 / 2);
  return check_finish();
}
