/* speed.c - how fast the ppc64le device runs under qemu next to the x86-64
 * device: the first target region (device start), 1000 empty ones, and ten
 * one-thread passes of a floating-point loop over 4 M doubles. Not a test
 * (speed is never asserted); run by hand, e.g. with clang 19:
 *   CFG=build/bin/simtarget-config
 *   clang-19 -O2 $($CFG --cflags --cc=clang-19) speed.c -o speed_x86
 *   clang-19 -O2 $($CFG --cflags --device=ppc64le --cc=clang-19) speed.c -o speed_ppc
 * (plus tests/toolchains.sh's host libomp flags), then run both with
 * LD_LIBRARY_PATH=build/lib:<that clang's libomp folder>. */
#include <stdio.h>
#include <omp.h>
#define N (1 << 22)
static double a[N];
int main(void) {
  double t0 = omp_get_wtime();
  #pragma omp target
  { }
  double t1 = omp_get_wtime();
  for (int i = 0; i < 1000; i++) {
    #pragma omp target
    { }
  }
  double t2 = omp_get_wtime();
  double s = 0;
  #pragma omp target data map(alloc: a)
  {
    #pragma omp target teams distribute parallel for num_teams(1) num_threads(1)
    for (int i = 0; i < N; i++) a[i] = i * 0.5;
    double t3 = omp_get_wtime();
    for (int r = 0; r < 10; r++) {
      #pragma omp target teams distribute parallel for reduction(+: s) num_teams(1) num_threads(1) map(tofrom: s)
      for (int i = 0; i < N; i++) s += a[i] * a[i] + 1.0 / (1.0 + a[i]);
    }
    double t4 = omp_get_wtime();
    printf("first target %.1f ms, empty target %.1f us each, 1-thread compute %.1f ms (s=%g)\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t4 - t3) * 1e3, s);
  }
  return 0;
}
