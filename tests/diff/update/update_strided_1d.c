/* update_strided_1d.c - from(c[1:3:2]) copies c[1], c[3], c[5] (OpenMP 5.0
 * 2.1.5: [lower:length:stride]); issue item 12.
 * versions: 13 14 15 16 19 22
 * cflags: -fopenmp-version=50
 */
#include "check.h"

int main(void) {
  int c[10];
  for (int i = 0; i < 10; i++) c[i] = i;
#pragma omp target data map(to : c)
  {
#pragma omp target
    for (int i = 0; i < 10; i++) c[i] = 100 + i;
#pragma omp target update from(c[1:3:2])
  }
  for (int i = 0; i < 10; i++) CHECK_EQ(c[i], (i == 1 || i == 3 || i == 5) ? 100 + i : i);
  return check_finish();
}
