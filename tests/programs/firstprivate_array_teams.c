/* firstprivate_array_teams.c - firstprivate of an array on `target teams
 * distribute` compiled at -O2 (issue 13, item 5); each team gets its own
 * initialised copy.
 * cflags: -O2
 * expect: every iteration reads the firstprivate array's host values.
 */
#include "check.h"

#define N 128

int main(void) {
  int coef[4] = {1, 10, 100, 1000};
  double w[3] = {0.5, 1.5, 2.5};
  int out[N];
  double wout[N];
#pragma omp target teams distribute firstprivate(coef, w) map(from : out, wout)
  for (int i = 0; i < N; i++) {
    out[i] = coef[i % 4] * i;
    wout[i] = w[i % 3];
  }
  for (int i = 0; i < N; i++) {
    CHECK_EQ(out[i], (i % 4 == 0 ? 1 : i % 4 == 1 ? 10 : i % 4 == 2 ? 100 : 1000) * i);
    CHECK(wout[i] == 0.5 + (i % 3));
  }
  int sums[N];
#pragma omp target teams distribute parallel for firstprivate(coef) map(from : sums)
  for (int i = 0; i < N; i++)
    sums[i] = coef[0] + coef[1] + coef[2] + coef[3] + i;
  for (int i = 0; i < N; i++)
    CHECK_EQ(sums[i], 1111 + i);
  return check_finish();
}
