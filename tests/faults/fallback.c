/* fallback.c - fault-sweep corpus: standalone target constructs whose
 * results are the same whether they run on the device or fall back to the
 * host (each region recomputes its outputs from inputs it does not change),
 * so a fault anywhere must leave the printed result correct under the
 * default OMP_TARGET_OFFLOAD policy.
 * Prints PASS when every result is right, FAIL otherwise. */
#include <stdio.h>
#include <stdlib.h>

#define N 256

int main(void) {
  int bad = 0;
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  if (!x || !y)
    return 2;
  for (int i = 0; i < N; i++) {
    x[i] = i;
    y[i] = -1;
  }
#pragma omp target map(to : x[0:N]) map(from : y[0:N])
  for (int i = 0; i < N; i++)
    y[i] = 2 * x[i] + 1;
  for (int i = 0; i < N; i++)
    bad += y[i] != 2.0 * i + 1;

  double sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum)           \
    map(to : x[0:N]) map(tofrom : sum)
  for (int i = 0; i < N; i++)
    sum += x[i];
  bad += sum != (N - 1) * N / 2.0;

  int scalar = 7, out = 0;
#pragma omp target map(from : out)
  out = scalar * 6;
  bad += out != 42;

  free(x);
  free(y);
  printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
