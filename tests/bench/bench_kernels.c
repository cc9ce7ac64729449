/*
 * bench_kernels.c - what launching teams kernels costs, written the way
 * users write them (a global pointer mapped once, `target teams ...`
 * constructs with default team counts). Run once against simtarget and once
 * against LLVM's runtime (tests/bench.sh prints both and the ratios).
 * Prints "metric value unit" lines:
 *   teams_dpf_0trips_us     `target teams distribute parallel for`, 0 trips
 *   teams_dpf_1024trips_us  the same, 1024 trips, empty body
 *   back_to_back_ms         KERNELS small `target teams distribute` kernels
 *                           one after another (each updates 256 doubles)
 *   back_to_back_us         the same, per kernel
 * Figures, not a test: nothing here asserts a time; a wrong result exits 1.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define LEN 1024
#define SMALL 256
#define KERNELS 20000

static double *data;

static void report(const char *metric, double value, const char *unit) {
  printf("%s %.4f %s\n", metric, value, unit);
  fflush(stdout);
}

/* The median of `rounds` timings of `iters` launches is the figure: one
 * slow round (another process took the CPU) does not move it. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double teams_dpf(int trips) {
  enum { ROUNDS = 7, ITERS = 2000 };
  double t[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = omp_get_wtime();
    for (int k = 0; k < ITERS; k++) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < trips; i++) {
      }
    }
    t[r] = (omp_get_wtime() - t0) / ITERS * 1e6;
  }
  qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
  return t[ROUNDS / 2];
}

int main(void) {
  data = calloc(LEN, sizeof(double));
  if (!data)
    return 1;
  double *d = data;
#pragma omp target enter data map(to : d[0:LEN])
  /* Warm up: device start, image load, the runtimes' thread pools. */
  for (int k = 0; k < 200; k++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < LEN; i++) {
    }
  }

  report("teams_dpf_0trips_us", teams_dpf(0), "us");
  report("teams_dpf_1024trips_us", teams_dpf(LEN), "us");

  double t0 = omp_get_wtime();
  for (int k = 0; k < KERNELS; k++) {
    /* data is a global pointer: mapped above, found present here. */
#pragma omp target teams distribute
    for (int i = 0; i < SMALL; i++)
      data[i] += 1.0;
  }
  double seconds = omp_get_wtime() - t0;
  report("back_to_back_ms", seconds * 1e3, "ms");
  report("back_to_back_us", seconds / KERNELS * 1e6, "us");

#pragma omp target exit data map(from : d[0:LEN])
  int wrong = 0;
  for (int i = 0; i < LEN; i++)
    wrong += data[i] != (i < SMALL ? (double)KERNELS : 0.0);
  if (wrong)
    fprintf(stderr, "bench_kernels: %d wrong elements\n", wrong);
  free(data);
  return wrong != 0;
}
