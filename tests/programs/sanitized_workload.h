/*
 * sanitized_workload.h - the offload work that sanitize_*.c run in a host
 * built with a sanitizer: four pthreads each map their own array section and
 * a table that a file-scope pointer points to, run a teams kernel and a
 * reduction, copy back, and use omp_target_alloc/omp_target_memcpy. Host threads
 * only touch their own data (copies back happen in the launching thread, so
 * a thread sanitizer sees every access ordered).
 */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include "check.h"

#define THREADS 4
#define N 4096

static double *scale; /* a file-scope pointer to a read-only table */
static double sums[THREADS];
static int errors[THREADS];

static void *offload_worker(void *arg) {
  int t = (int)(long)arg;
  double *a = malloc(N * sizeof(double));
  if (!a) {
    errors[t] = 1;
    return NULL;
  }
  for (int i = 0; i < N; i++) a[i] = i;
  double sum = 0;
#pragma omp target data map(tofrom : a[0:N]) map(to : scale[0:THREADS])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) a[i] = scale[t] * a[i] + t;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(tofrom : sum)
    for (int i = 0; i < N; i++) sum += a[i];
  }
  sums[t] = sum;
  for (int i = 0; i < N; i++)
    if (a[i] != 2.0 * i + t) errors[t]++;
  /* Device memory routines: a round trip through a device buffer. */
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double *d = omp_target_alloc(N * sizeof(double), dev);
  double *back = malloc(N * sizeof(double));
  if (!d || !back ||
      omp_target_memcpy(d, a, N * sizeof(double), 0, 0, dev, host) != 0 ||
      omp_target_memcpy(back, d, N * sizeof(double), 0, 0, host, dev) != 0)
    errors[t]++;
  else
    for (int i = 0; i < N; i++)
      if (back[i] != a[i]) errors[t]++;
  omp_target_free(d, dev);
  free(back);
  free(a);
  return NULL;
}

static int run_sanitized_workload(void) {
  pthread_t threads[THREADS];
  scale = malloc(THREADS * sizeof(double));
  if (!scale) return 2;
  for (int t = 0; t < THREADS; t++) scale[t] = 2;
  for (long t = 0; t < THREADS; t++)
    if (pthread_create(&threads[t], NULL, offload_worker, (void *)t) != 0) return 2;
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  for (int t = 0; t < THREADS; t++) {
    CHECK_EQ(errors[t], 0);
    /* sum of 2i + t over i < N */
    CHECK(sums[t] == (double)N * (N - 1) + (double)t * N);
  }
  free(scale);
  return check_finish();
}
