/* sanitized_device_threads.h - the work of sanitize_device_thread.cpp and
 * sanitize_device_thread19.cpp (one program, two ways to link it). */
#define WANT_DEVICE_ASAN 0
#include "sanitized_device_workload.h"

static double *b; /* a file-scope pointer */

static int phases(void) {
  const int n = 4096;
  double *a = static_cast<double *>(malloc(n * sizeof(double)));
  b = static_cast<double *>(malloc(n * sizeof(double)));
  for (int i = 0; i < n; i++) a[i] = i;
  double sum = 0;
  int count = 0, first = 0;
#pragma omp target teams num_teams(1) thread_limit(4) map(tofrom : a[0:n], b[0:n], sum, count, first)
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++) b[i] = a[i] * 2;
#pragma omp barrier
#pragma omp for reduction(+ : sum)
    for (int i = 0; i < n; i++) sum += b[n - 1 - i];
#pragma omp single
    first = 1;
#pragma omp critical
    count += 1;
  }
  CHECK(sum == (double)n * (n - 1));
  CHECK(first == 1 && count >= 1);
  int x = 0, y = 0;
#pragma omp target map(tofrom : x, y)
#pragma omp parallel num_threads(4)
#pragma omp single
  {
#pragma omp task depend(out : x)
    x = 1;
#pragma omp task depend(in : x) depend(out : y)
    y = x + 1;
#pragma omp taskwait
  }
  CHECK(x == 1 && y == 2);
  /* nowait kernels on disjoint halves, joined by taskwait */
#pragma omp target teams distribute parallel for map(tofrom : a[0:n / 2]) nowait
  for (int i = 0; i < n / 2; i++) a[i] += 1;
#pragma omp target teams distribute parallel for map(tofrom : a[n / 2:n / 2]) nowait
  for (int i = n / 2; i < n; i++) a[i] -= 1;
#pragma omp taskwait
  CHECK(a[1] == 2 && a[n - 1] == n - 2);
  free(a);
  free(b);
  return 0;
}

int main() {
  phases();
  return run_sanitized_device_workload();
}
