/* update_strided_3d.c - a 3-D strided update, t[1:2:2][0:3:2][1:2:2] of
 * t[4][6][5]: the descriptor alone cannot tell the middle unit (t[4][3][10]
 * with [1:2:2][0:3:1][1:2:2] gives the same one), the map name (-g) can.
 * cflags: -fopenmp-version=50 -g
 * expect: t[i][j][k] copied back exactly for i in {1,3}, j in {0,2,4},
 * k in {1,3} */
#include "check.h"

int main(void) {
  int t[4][6][5];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++)
      for (int k = 0; k < 5; k++) t[i][j][k] = 0;
#pragma omp target data map(to : t)
  {
#pragma omp target
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 6; j++)
        for (int k = 0; k < 5; k++) t[i][j][k] = 100 * i + 10 * j + k + 1;
#pragma omp target update from(t[1:2:2][0:3:2][1:2:2])
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++)
      for (int k = 0; k < 5; k++) {
        int hit = (i == 1 || i == 3) && j % 2 == 0 && (k == 1 || k == 3);
        CHECK_EQ(t[i][j][k], hit ? 100 * i + 10 * j + k + 1 : 0);
      }
  return check_finish();
}
