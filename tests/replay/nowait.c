/* Two kernels launched with nowait, then a taskwait. */
#include <stdio.h>

int main(void) {
  int n = 2048;
  static float a[2048], b[2048];
  for (int i = 0; i < n; i++)
    a[i] = b[i] = (float)i;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) nowait
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 2.0f + 1.0f;
#pragma omp target teams distribute parallel for map(tofrom: b[0:n]) nowait
  for (int i = 0; i < n; i++)
    b[i] = b[i] - 3.0f;
#pragma omp taskwait
  printf("nowait %.1f %.1f\n", a[n - 1], b[n - 1]);
  return 0;
}
