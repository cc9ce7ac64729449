/* delete_then_map.c - `target exit data map(delete: x[:n])` and later a
 * target region mapping x[:n] again (issue 13, item 10).
 * expect: the second region gets a fresh device copy of x.
 */
#include <stdlib.h>
#include "check.h"

#define N 48

int main(void) {
  int n = N;
  double *x = malloc(N * sizeof *x);
  for (int i = 0; i < N; i++)
    x[i] = i;
#pragma omp target enter data map(to : x[:n])
#pragma omp target
  for (int i = 0; i < n; i++)
    x[i] += 1;
#pragma omp target exit data map(delete : x[:n])
  CHECK(x[3] == 3.0); /* delete copies nothing back */
#pragma omp target map(to : x[:n]) map(tofrom : n)
  {
    double s = 0;
    for (int i = 0; i < n; i++)
      s += x[i];
    n = (int)s;
  }
  CHECK_EQ(n, N * (N - 1) / 2);
  free(x);
  return check_finish();
}
