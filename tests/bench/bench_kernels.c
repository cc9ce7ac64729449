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
 *   parallel_for_4096_us    `target parallel for` over 4096 doubles: one
 *                           team, its threads the runtime's default
 *                           (median of 7 rounds of 2000)
 *   gpu_sized_ms            the shape GPU test suites use: `target teams
 *                           distribute parallel for num_teams(T)
 *                           thread_limit(L) reduction(+)` over 4096 doubles
 *                           for T = 1..256 and L = 32, 64, ..., 1024 (1536
 *                           launches; median of 3 sweeps)
 *   gpu_sized_small_limit_ms  the same for L = 4, 8, 16 (768 launches):
 *                           limits within the device's thread budget,
 *                           which are a team's width until dyn-var narrows
 *                           a region too small to share (80 ms a launch at
 *                           L = 16 while it did not)
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

/* One sweep of the GPU-shaped launches; the sum of all their reductions. */
static double parallel_for(void) {
  enum { ROUNDS = 7, ITERS = 2000, N = 4096 };
  static double a[N];
  double t[ROUNDS];
#pragma omp target enter data map(to : a[0:N])
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = omp_get_wtime();
    for (int k = 0; k < ITERS; k++) {
#pragma omp target parallel for
      for (int i = 0; i < N; i++)
        a[i] += 1.0;
    }
    t[r] = (omp_get_wtime() - t0) / ITERS * 1e6;
  }
#pragma omp target exit data map(from : a[0:N])
  qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
  if (a[N - 1] != (double)ROUNDS * ITERS)
    fprintf(stderr, "bench_kernels: target parallel for: %g, expected %d\n", a[N - 1],
            ROUNDS * ITERS);
  return a[N - 1] == (double)ROUNDS * ITERS ? t[ROUNDS / 2] : -1;
}

static double gpu_sized_sweep(const double *v, int n, int low, int high) {
  double total = 0;
  for (int L = low; L <= high; L *= 2)
    for (int T = 1; T <= 256; T++) {
      double sum = 0;
#pragma omp target teams distribute parallel for num_teams(T) thread_limit(L) \
    reduction(+ : sum)
      for (int i = 0; i < n; i++)
        sum += v[i];
      total += sum;
    }
  return total;
}

/* The median of 3 sweeps of thread limits low, 2 low, ..., high. */
static int gpu_sized(const char *metric, int low, int high) {
  enum { N = 4096, SWEEPS = 3 };
  static double v[N];
  for (int i = 0; i < N; i++)
    v[i] = i % 7;
  double want = 0;
  for (int i = 0; i < N; i++)
    want += v[i];
  int limits = 0;
  for (int L = low; L <= high; L *= 2)
    limits++;
  want *= limits * 256;
  double t[SWEEPS];
  int wrong = 0;
#pragma omp target enter data map(to : v[0:N])
  for (int r = 0; r < SWEEPS; r++) {
    double t0 = omp_get_wtime();
    wrong += gpu_sized_sweep(v, N, low, high) != want;
    t[r] = (omp_get_wtime() - t0) * 1e3;
  }
#pragma omp target exit data map(delete : v[0:N])
  qsort(t, SWEEPS, sizeof(t[0]), cmp_double);
  report(metric, t[SWEEPS / 2], "ms");
  if (wrong)
    fprintf(stderr, "bench_kernels: %d GPU-sized sweeps summed wrong\n", wrong);
  return wrong;
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
  double pf = parallel_for();
  report("parallel_for_4096_us", pf, "us");

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
  int wrong = gpu_sized("gpu_sized_ms", 32, 1024) +
              gpu_sized("gpu_sized_small_limit_ms", 4, 16) + (pf < 0);
  for (int i = 0; i < LEN; i++)
    wrong += data[i] != (i < SMALL ? (double)KERNELS : 0.0);
  if (wrong)
    fprintf(stderr, "bench_kernels: %d wrong elements\n", wrong);
  free(data);
  return wrong != 0;
}
