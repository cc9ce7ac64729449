/* Timeline demo: nowait. Two target regions are queued without waiting and
 * run at the same time (two nowait lanes); the host works meanwhile and
 * then waits for both at the taskwait. */
// profile: overlap nowait 2
// profile: copy from_device 16000000 v
// profile: kernel fill_l15
// profile: construct target nowait @ nowait.c:15
// profile: track nowait lane 1
#include <stdio.h>

#define N 2000000
static double x[N], y[N];

static void fill(double *v, double value) {
#pragma omp target teams distribute parallel for map(from: v[0:N]) nowait
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 40; k++)
      v[i] = value + k * 0;
}

int main(void) {
#pragma omp parallel
#pragma omp single
  {
    fill(x, 1);
    fill(y, 2);
    double host = 0;
    for (int i = 0; i < 1000000; i++)
      host += i * 0.5; /* the host keeps working */
#pragma omp taskwait
    printf("host %g\n", host > 0 ? 1.0 : 0.0);
  }
  printf("%s\n", x[N - 1] == 1 && y[0] == 2 ? "PASS" : "FAIL");
  return 0;
}
// svg: kernel fill_l15
// svg: nowait lane 1
