/*
 * bench_offload.c - what an offload runtime costs, measured the same way on
 * any runtime: run it once against simtarget and once against LLVM's own
 * (tests/bench.sh does both and prints ratios). Prints "metric value unit"
 * lines. Not a test: nothing here asserts a time.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { return omp_get_wtime(); }

static void report(const char *metric, double value, const char *unit) {
  printf("%s %.4f %s\n", metric, value, unit);
  fflush(stdout);
}

static void bench_empty_launch(void) {
  const int iters = 20000;
  for (int i = 0; i < 200; i++) {
#pragma omp target
    { }
  }
  double t0 = now();
  for (int i = 0; i < iters; i++) {
#pragma omp target
    { }
  }
  report("empty_launch_us", (now() - t0) / iters * 1e6, "us");
}

/* A new mapping: `target enter data` of a fresh 64-byte heap object while
 * the mapping table grows (nothing is unmapped in between, so no device
 * memory is reused). */
static void bench_new_objects(void) {
  const int n = 20000;
  char **objs = malloc(sizeof *objs * (size_t)n);
  for (int i = 0; i < n; i++) {
    objs[i] = malloc(64);
    memset(objs[i], i, 64);
  }
  double t0 = now();
  for (int i = 0; i < n; i++) {
    char *o = objs[i];
#pragma omp target enter data map(to: o[0:64])
  }
  report("new_object_64B_us", (now() - t0) / n * 1e6, "us");
  for (int i = 0; i < n; i++) {
    char *o = objs[i];
#pragma omp target exit data map(delete: o[0:64])
    free(o);
  }
  free(objs);
}

/* map(tofrom) of a small array that is not on the device yet (each region
 * allocates, copies in, runs, copies out and frees): bytes moved each way
 * per second. A fresh heap array each time, as a loop over temporaries. */
static void bench_map_tofrom(size_t bytes, int iters, const char *metric) {
  const long n = (long)(bytes / sizeof(double));
  double *keep = malloc(bytes);
  for (int i = 0; i < 100; i++) {
#pragma omp target map(tofrom: keep[0:n])
    keep[0] += 1;
  }
  double t = 0;
  for (int i = 0; i < iters; i++) {
    double *a = malloc(bytes);
    /* Keeps clang from folding malloc + memset into calloc, which leaves a
     * fresh 64 MiB array untouched: its page faults (the program's own, in
     * the copies in and out) would land in the timed part. */
    __asm__ volatile("" ::"r"(a) : "memory");
    memset(a, 0, bytes);
    double t0 = now();
#pragma omp target map(tofrom: a[0:n])
    a[n - 1] += 1;
    t += now() - t0;
    if (a[n - 1] != 1)
      fprintf(stderr, "bench: map(tofrom) lost the kernel's write\n");
    free(a);
  }
  report(metric, (double)bytes * iters / t / 1e9, "GB/s");
  free(keep);
}

static void bench_map_unmap(void) {
  const int iters = 20000;
  double x[8] = {0};
  double t0 = now();
  for (int i = 0; i < iters; i++) {
#pragma omp target enter data map(to: x[0:8])
#pragma omp target exit data map(release: x[0:8])
  }
  report("map_unmap_us", (now() - t0) / iters * 1e6, "us");
}

/* Cost of finding one object among n mapped ones (a present map of an
 * object already on the device: a lookup and a refcount, no copy). */
static void bench_lookup(int n) {
  double **objs = malloc(sizeof *objs * (size_t)n);
  for (int i = 0; i < n; i++) {
    objs[i] = malloc(sizeof(double));
    double *o = objs[i];
#pragma omp target enter data map(alloc: o[0:1])
  }
  const int iters = 20000;
  unsigned seed = 12345;
  double t0 = now();
  for (int i = 0; i < iters; i++) {
    seed = seed * 1103515245u + 12345u;
    double *o = objs[(seed >> 8) % (unsigned)n];
#pragma omp target enter data map(alloc: o[0:1])
#pragma omp target exit data map(release: o[0:1])
  }
  double t = (now() - t0) / iters * 1e6;
  char name[64];
  snprintf(name, sizeof name, "lookup_%d_us", n);
  report(name, t, "us");
  for (int i = 0; i < n; i++) {
    double *o = objs[i];
#pragma omp target exit data map(delete: o[0:1])
    free(o);
  }
  free(objs);
}

static void bench_bandwidth(void) {
  const size_t n = 64u << 20; /* bytes */
  char *a = malloc(n), *b = malloc(n);
  memset(a, 1, n);
  memset(b, 2, n);
#pragma omp target enter data map(alloc: a[0:n])
  /* one copy each way first: the device pages are touched (faulted in) once,
   * as b was by memset, so every figure is steady-state bandwidth */
#pragma omp target update to(a[0:n])
#pragma omp target update from(a[0:n])
  /* The three copies take turns, so that a drift in the machine's memory
   * bandwidth (other processes, page placement) hits each alike: the goal
   * compares the transfers with the host's own memcpy. */
  const int reps = 10;
  double t_to = 0, t_from = 0, t_memcpy = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
#pragma omp target update to(a[0:n])
    double t1 = now();
#pragma omp target update from(a[0:n])
    double t2 = now();
    memcpy(b, a, n);
    __asm__ volatile("" ::"r"(b) : "memory");
    double t3 = now();
    t_to += (t1 - t0) / reps;
    t_from += (t2 - t1) / reps;
    t_memcpy += (t3 - t2) / reps;
  }
#pragma omp target exit data map(delete: a[0:n])
  report("to_device_GBps", n / t_to / 1e9, "GB/s");
  report("from_device_GBps", n / t_from / 1e9, "GB/s");
  report("host_memcpy_GBps", n / t_memcpy / 1e9, "GB/s");
  free(a);
  free(b);
}

/* Square matrix product: the same loop nest on the device and in a host
 * `parallel for`, in GFLOP/s.
 * After a host parallel region libomp keeps its threads spinning for
 * KMP_BLOCKTIME (200 ms by default): on LLVM's CPU plugin the target region
 * then runs on them, on simtarget the device's threads share the CPUs with
 * them (README, "Differences"). That is its own figure,
 * matmul_device_after_host_parallel_GFlops, taken right after one;
 * matmul_device_GFlops, the device's compute speed, is taken once the host
 * threads sleep (run right after bench_stream's host triad it was 0.6-0.8
 * of the host's speed in some `make bench` runs, 1.0 in others). */
#pragma omp declare target
static inline void matmul_row(const double *a, const double *b, double *c, int n, int i) {
  for (int j = 0; j < n; j++) {
    double sum = 0;
    for (int k = 0; k < n; k++)
      sum += a[i * n + k] * b[k * n + j];
    c[i * n + j] = sum;
  }
}
#pragma omp end declare target

static void matmul_device(const double *a, const double *b, double *c, int n) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    matmul_row(a, b, c, n, i);
}

static void matmul_host(const double *a, const double *b, double *c, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    matmul_row(a, b, c, n, i);
}

/* Sleeps until the host runtime's threads have stopped spinning. */
static void wait_past_blocktime(void) {
  int ms = kmp_get_blocktime();
  if (ms < 0 || ms > 1000) /* "infinite" is INT_MAX */
    ms = 1000;
  ms += 50;
  struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L};
  nanosleep(&t, NULL);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of 5 timings of fn(a, b, c, n), in seconds: one slow
 * repetition (another process took a CPU) does not move it. */
static double matmul_median(void (*fn)(const double *, const double *, double *, int),
                            const double *a, const double *b, double *c, int n) {
  enum { REPS = 5 };
  double t[REPS];
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    fn(a, b, c, n);
    t[r] = now() - t0;
  }
  qsort(t, REPS, sizeof(t[0]), cmp_double);
  return t[REPS / 2];
}

static void bench_matmul(void) {
  const int n = 256;
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
         *c = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n * n; i++)
    a[i] = i % 7, b[i] = i % 5, c[i] = 0;
  double flops = 2.0 * n * n * n;
#pragma omp target enter data map(to: a[0:n*n], b[0:n*n]) map(alloc: c[0:n*n])
  matmul_device(a, b, c, n); /* warm up, not timed */
  /* A host parallel loop, then the launches of the next 200 ms or so. */
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n * n; i++)
    s += a[i];
  const int after_reps = 10;
  double t0 = now();
  for (int r = 0; r < after_reps; r++)
    matmul_device(a, b, c, n);
  double t_after_parallel = (now() - t0) / after_reps;
  wait_past_blocktime();
  double t_dev = matmul_median(matmul_device, a, b, c, n);
#pragma omp target exit data map(delete: a[0:n*n], b[0:n*n]) map(from: c[0:n*n])
  matmul_host(a, b, c, n); /* warm up, not timed */
  double t_host = matmul_median(matmul_host, a, b, c, n);
  report("matmul_device_GFlops", flops / t_dev / 1e9, "GF/s");
  report("matmul_device_after_host_parallel_GFlops", flops / t_after_parallel / 1e9, "GF/s");
  report("matmul_host_GFlops", flops / t_host / 1e9, "GF/s");
  double want = 0;
  for (int i = 0; i < n * n; i++)
    want += a[i];
  if (s != want)
    fprintf(stderr, "bench: host parallel sum %g, expected %g\n", s, want);
  free(a);
  free(b);
  free(c);
}

static void bench_stream(void) {
  const long n = 8L << 20;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n),
         *c = malloc(sizeof(double) * n);
  for (long i = 0; i < n; i++)
    a[i] = 0, b[i] = i, c[i] = 2 * i;
  const double s = 3.0;
  const int reps = 10;
#pragma omp target enter data map(to: a[0:n], b[0:n], c[0:n])
#pragma omp target teams distribute parallel for
  for (long i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
  double t0 = now();
  for (int r = 0; r < reps; r++) {
#pragma omp target teams distribute parallel for
    for (long i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
  }
  double t_dev = (now() - t0) / reps;
#pragma omp target exit data map(from: a[0:n]) map(delete: b[0:n], c[0:n])
#pragma omp parallel for
  for (long i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
  t0 = now();
  for (int r = 0; r < reps; r++) {
#pragma omp parallel for
    for (long i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
  }
  double t_host = (now() - t0) / reps;
  double bytes = 3.0 * sizeof(double) * n;
  report("triad_device_GBps", bytes / t_dev / 1e9, "GB/s");
  report("triad_host_GBps", bytes / t_host / 1e9, "GB/s");
  free(a);
  free(b);
  free(c);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : "";
  int on_device = 0;
#pragma omp target map(from: on_device)
  on_device = !omp_is_initial_device();
  if (!on_device) {
    fprintf(stderr, "bench: the target region ran on the host\n");
    return 1;
  }
  /* The small figures alone (tests/bench/loaded.sh runs them while other
   * processes keep the CPUs busy). */
  if (!strcmp(only, "small")) {
    bench_empty_launch();
    bench_map_tofrom(4096, 2000, "map_tofrom_4KiB_GBps");
    bench_map_tofrom(16384, 2000, "map_tofrom_16KiB_GBps");
    return 0;
  }
  if (!*only || !strcmp(only, "launch"))
    bench_empty_launch();
  if (!*only || !strcmp(only, "map"))
    bench_map_unmap();
  /* before the lookups: 100000 live guarded objects can outgrow the device
   * process's vm.max_map_count where it guards with mprotect (not with
   * Linux guard regions), which turns simdevice's guard pages off */
  if (!*only || !strcmp(only, "new"))
    bench_new_objects();
  if (!*only || !strcmp(only, "tofrom")) {
    bench_map_tofrom(4096, 2000, "map_tofrom_4KiB_GBps");
    bench_map_tofrom(16384, 2000, "map_tofrom_16KiB_GBps");
    bench_map_tofrom(64u << 20, 10, "map_tofrom_64MiB_GBps");
  }
  if (!*only || !strcmp(only, "lookup"))
    for (int n = 10; n <= 100000; n *= 10)
      bench_lookup(n);
  if (!*only || !strcmp(only, "bandwidth"))
    bench_bandwidth();
  if (!*only || !strcmp(only, "stream"))
    bench_stream();
  if (!*only || !strcmp(only, "matmul"))
    bench_matmul();
  return 0;
}
