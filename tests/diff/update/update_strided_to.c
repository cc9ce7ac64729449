/* update_strided_to.c - to(c[0:4:3]) copies c[0], c[3], c[6], c[9] only.
 * cflags: -fopenmp-version=50 */
#include "check.h"

int main(void) {
  int c[12] = {0}, got[12];
#pragma omp target data map(to : c)
  {
    for (int i = 0; i < 12; i++) c[i] = i + 1;
#pragma omp target update to(c[0:4:3])
#pragma omp target map(from : got)
    for (int i = 0; i < 12; i++) got[i] = c[i];
  }
  for (int i = 0; i < 12; i++) CHECK_EQ(got[i], i % 3 == 0 ? i + 1 : 0);
  return check_finish();
}
