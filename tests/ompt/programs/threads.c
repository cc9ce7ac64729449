/* ompt: per-construct (host threads interleave), trace
 * Four host threads, each with its own target regions and nowait regions:
 * every thread's events nest and carry its own construct's ids. */
#include <stdio.h>

#define N 256

int main(void) {
  static double a[4][N];
  int bad = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
  {
    int t = 0;
#pragma omp single
    ;
#pragma omp for
    for (t = 0; t < 4; t++) {
      double *p = a[t];
      for (int r = 0; r < 3; r++) {
#pragma omp target map(tofrom : p[0:N])
        for (int i = 0; i < N; i++)
          p[i] += 1;
#pragma omp target map(tofrom : p[0:N]) nowait
        for (int i = 0; i < N; i++)
          p[i] += 1;
#pragma omp taskwait
      }
      for (int i = 0; i < N; i++)
        bad += p[i] != 6;
    }
  }
  puts(bad ? "FAIL" : "PASS");
  return bad != 0;
}
