/* update_strided_2d.c - a 2-D strided update: rows 1, 3 and columns 2, 5.
 * cflags: -fopenmp-version=50 */
#include "check.h"

int main(void) {
  int m[5][8];
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 8; j++) m[i][j] = 0;
#pragma omp target data map(to : m)
  {
#pragma omp target
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 8; j++) m[i][j] = i * 10 + j;
#pragma omp target update from(m[1:2:2][2:2:3])
  }
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 8; j++) {
      int hit = (i == 1 || i == 3) && (j == 2 || j == 5);
      CHECK_EQ(m[i][j], hit ? i * 10 + j : 0);
    }
  return check_finish();
}
