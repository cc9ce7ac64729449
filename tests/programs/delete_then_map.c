/* delete_then_map.c - `target exit data map(delete: x[:n])` and later a
 * target region mapping x[:n] again (issue 13, item 10), for a local
 * pointer, a file-scope pointer and a pointer member of a struct.
 * (SIMTARGET_CHECK=stale reports the two results delete drops on purpose)
 * stale-expect: released-unread * 2
 * expect: each later region gets a fresh device copy of x and computes
 * with it; delete copies nothing back.
 */
#include <stdlib.h>
#include "check.h"

#define N 48
double *gx;
struct holder {
  int n;
  double *x;
} h;

int main(void) {
  int n = N;
  double *x = malloc(N * sizeof *x);
  gx = malloc(N * sizeof *gx);
  h.n = N;
  h.x = malloc(N * sizeof *h.x);
  for (int i = 0; i < N; i++)
    x[i] = gx[i] = h.x[i] = i;
#pragma omp target enter data map(to : x[:n], gx[:n], h.x[:n])
#pragma omp target
  for (int i = 0; i < n; i++) {
    x[i] += 1;
    gx[i] += 1;
  }
  /* h.x[:n] stays unused here: with clang 22 an implicit map of h would
   * copy h.x's host value (enter data attached nothing, h was absent),
   * a real mapping bug that LLVM 22 only survives by sharing memory. */
#pragma omp target exit data map(delete : x[:n], gx[:n], h.x[:n])
  CHECK(x[3] == 3.0 && gx[3] == 3.0 && h.x[3] == 3.0);
  double s1 = 0, s2 = 0, s3 = 0;
#pragma omp target map(to : x[:n]) map(tofrom : s1)
  for (int i = 0; i < n; i++)
    s1 += x[i];
#pragma omp target map(to : gx[:n]) map(tofrom : s2)
  for (int i = 0; i < n; i++)
    s2 += gx[i];
#pragma omp target map(to : h.x[:n]) map(tofrom : s3)
  for (int i = 0; i < n; i++)
    s3 += h.x[i];
  CHECK(s1 == N * (N - 1) / 2);
  CHECK(s2 == N * (N - 1) / 2);
  CHECK(s3 == N * (N - 1) / 2);
  free(x);
  free(gx);
  free(h.x);
  return check_finish();
}
