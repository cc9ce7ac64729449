/* update_strided.c - non-contiguous `target update` (OpenMP 5.0 strided
 * sections, clang 22's NON_CONTIG descriptors; issue 13, item 12):
 * from(c[1:3:2]) moves c[1], c[3], c[5], and two-dimensional sections move
 * exactly the elements the standard names. (A strided outer dimension,
 * m[1:2:2][...], is not tested: clang 22's descriptor lacks the size of
 * an inner slice; see README, "Differences from LLVM's runtime".)
 * versions: 22
 * expect: after each update only the named elements changed on the host.
 * The elements not named stay changed on the device only, on purpose: the
 * stale check finds c's and m's results dropped at the region's end.
 * stale-expect: released-unread * 2
 */
#include "check.h"

#define N 12

int main(void) {
  int c[N], m[6][8];
  for (int i = 0; i < N; i++)
    c[i] = i;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 8; j++)
      m[i][j] = 10 * i + j;
#pragma omp target data map(to : c, m)
  {
#pragma omp target
    {
      for (int i = 0; i < N; i++)
        c[i] = -c[i] - 100;
      for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++)
          m[i][j] = -m[i][j] - 100;
    }
#pragma omp target update from(c[1 : 3 : 2])
    for (int i = 0; i < N; i++)
      CHECK_EQ(c[i], (i == 1 || i == 3 || i == 5) ? -i - 100 : i);
#pragma omp target update from(c[6 : 2 : 3])
    CHECK_EQ(c[6], -106);
    CHECK_EQ(c[7], 7);
    CHECK_EQ(c[8], 8);
    CHECK_EQ(c[9], -109);
    CHECK_EQ(c[10], 10);
    /* rows 1..2, columns 2 and 5 */
#pragma omp target update from(m[1 : 2][2 : 2 : 3])
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 8; j++) {
        int moved = (i == 1 || i == 2) && (j == 2 || j == 5);
        CHECK_EQ(m[i][j], moved ? -(10 * i + j) - 100 : 10 * i + j);
      }
    /* rows 4..5, contiguous columns 1..3 */
#pragma omp target update from(m[4 : 2][1 : 3])
    CHECK_EQ(m[4][0], 40);
    CHECK_EQ(m[4][1], -141);
    CHECK_EQ(m[5][3], -153);
    CHECK_EQ(m[5][4], 54);
  }
  return check_finish();
}
