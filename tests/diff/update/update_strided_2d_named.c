/* update_strided_2d_named.c - 2-D strided updates of a file-scope array
 * whose row size the descriptor does not tell apart (g[6][4]: rows of 32
 * bytes with stride 2 look like rows of 64 with stride 1): compiled with -g,
 * the map name "g[1:2:2][1:2]" gives the section strides. Both directions.
 * cflags: -fopenmp-version=50 -g
 * expect: rows 1, 3 and columns 1, 2 of g copied back; rows 0, 2, 4 and
 * columns 0, 3 of h copied to the device */
#include "check.h"

double g[6][4], h[6][4], r[6][4];

int main(void) {
#pragma omp target data map(to : g) map(alloc : h)
  {
#pragma omp target
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 4; j++) {
        g[i][j] = i * 10 + j;
        h[i][j] = -1;
      }
#pragma omp target update from(g[1:2:2][1:2])
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 4; j++) h[i][j] = 100 + i * 10 + j;
#pragma omp target update to(h[0:3:2][0:2:3])
#pragma omp target map(from : r)
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 4; j++) r[i][j] = h[i][j];
  }
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 4; j++) {
      int from = (i == 1 || i == 3) && (j == 1 || j == 2);
      CHECK(g[i][j] == (from ? i * 10 + j : 0));
      int to = i % 2 == 0 && (j == 0 || j == 3); /* r: the device's h */
      CHECK(r[i][j] == (to ? 100 + i * 10 + j : -1));
    }
  return check_finish();
}
