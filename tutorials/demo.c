/* demo.c - a small offload program to watch simtarget at work.
 *
 * y = a*x + y on the device, twice, with the vectors kept on the device by
 * `target data` in between; then a `teams` loop sums y on the device.
 * Run by tutorials/demo.sh with LIBOMPTARGET_INFO set, so every mapping,
 * copy and kernel launch is printed as it happens. */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void) {
  static double x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = 1.0;
    y[i] = i;
  }
  int on_device = 0;

  /* 1. Put x and y on the device for the whole block: x only goes there,
   *    y goes there and comes back when the block ends. */
#pragma omp target data map(to : x) map(tofrom : y)
  {
    /* 2. A kernel: y = 2x + y. Nothing is copied: both are present. */
#pragma omp target map(from : on_device)
    {
      on_device = !omp_is_initial_device();
      for (int i = 0; i < N; i++) y[i] = 2.0 * x[i] + y[i];
    }

    /* 3. Change x on the host; the device copy is stale until we say so. */
    for (int i = 0; i < N; i++) x[i] = 10.0;
#pragma omp target update to(x)

    /* 4. The same kernel again, now with the new x. */
#pragma omp target
    for (int i = 0; i < N; i++) y[i] = 2.0 * x[i] + y[i];
  } /* 5. y comes back here; x is simply dropped. */

  /* 6. A teams loop: the iterations are shared among teams of threads. */
  double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+ : sum) \
    num_teams(2) thread_limit(4) map(to : y)
  for (int i = 0; i < N; i++) sum += y[i];

  /* y[i] = i + 2 + 20, so the sum is N(N-1)/2 + 22N. */
  double want = N * (N - 1) / 2.0 + 22.0 * N;
  printf("ran on the device: %s; y[10] = %g (want 32); sum = %g (want %g)\n",
         on_device ? "yes" : "no", y[10], sum, want);
  int ok = on_device && y[10] == 32.0 && sum == want;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
