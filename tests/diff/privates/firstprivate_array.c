/* firstprivate_array.c - firstprivate of an array on target: the device
 * copy starts with the host values, the host keeps its own. */
#include "check.h"

int main(void) {
  int a[16], sum = 0;
  for (int i = 0; i < 16; i++) a[i] = i;
#pragma omp target firstprivate(a) map(tofrom : sum)
  {
    for (int i = 0; i < 16; i++) { a[i] *= 2; sum += a[i]; }
  }
  CHECK_EQ(sum, 240);
  CHECK_EQ(a[15], 15);
  return check_finish();
}
