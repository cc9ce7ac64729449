/* tdpf_O0.c - target teams distribute parallel for over heap arrays, with
 * a reduction and num_teams/thread_limit clauses.
 * cflags: -O0 */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 10000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 0; }
  double s = 0;
#pragma omp target teams distribute parallel for num_teams(8) thread_limit(16) \
    map(to : a[0:n]) map(from : b[0:n]) reduction(+ : s)
  for (int i = 0; i < n; i++) {
    b[i] = 2 * a[i];
    s += a[i];
  }
  for (int i = 0; i < n; i++) CHECK(b[i] == 2.0 * i);
  CHECK(s == (double)(n - 1) * n / 2);
  free(a);
  free(b);
  return check_finish();
}
