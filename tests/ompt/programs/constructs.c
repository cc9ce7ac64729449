/* ompt: nonemi, trace
 * One of each construct kind: target, target enter/exit data, target
 * update, target nowait, target data around a region. */
#include <stdio.h>

#define N 64
static double a[N], b[N];

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i, b[i] = 0;
#pragma omp target map(tofrom : a[0:N])
  for (int i = 0; i < N; i++)
    a[i] += 1;
#pragma omp target enter data map(to : b[0:N])
#pragma omp target update to(a[0:N])
#pragma omp target map(to : a[0:N]) map(alloc : b[0:N])
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
#pragma omp target exit data map(from : b[0:N])
#pragma omp target map(tofrom : a[0:N]) nowait
  for (int i = 0; i < N; i++)
    a[i] -= 1;
#pragma omp taskwait
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += a[i] != i || b[i] != 2 * (i + 1);
  puts(bad ? "FAIL" : "PASS");
  return bad != 0;
}
