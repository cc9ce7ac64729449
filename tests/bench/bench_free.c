/*
 * bench_free.c - the memory routines' per-block cost as the number of live
 * blocks grows (issue 30 item 12: a list made omp_target_free linear in the
 * live blocks, 9.8 s for 50,000). Allocates N blocks of 64 bytes with
 * omp_target_alloc on the default device, then frees them in allocation
 * order (the oldest first: the far end of a list that grows at its head)
 * and prints, for N = 5,000 and 50,000:
 *   target_alloc_N_us   mean omp_target_alloc per block
 *   target_free_N_us    mean omp_target_free per block
 * Flat (O(log n) or better) when the 50,000 figures stay near the 5,000 ones.
 * Not a test: nothing here asserts a time.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double mono_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int run(int n, int device) {
  void **blocks = malloc((size_t)n * sizeof *blocks);
  if (!blocks)
    return 1;
  double t0 = mono_us();
  for (int i = 0; i < n; i++)
    if (!(blocks[i] = omp_target_alloc(64, device))) {
      fprintf(stderr, "bench_free: omp_target_alloc %d of %d failed\n", i, n);
      return 1;
    }
  double t1 = mono_us();
  for (int i = 0; i < n; i++)
    omp_target_free(blocks[i], device);
  double t2 = mono_us();
  printf("target_alloc_%d_us %.3f us\n", n, (t1 - t0) / n);
  printf("target_free_%d_us %.3f us\n", n, (t2 - t1) / n);
  free(blocks);
  return 0;
}

int main(void) {
  int device = omp_get_default_device();
  /* start the device outside the timed loops */
#pragma omp target
  {
  }
  return run(5000, device) || run(50000, device);
}
