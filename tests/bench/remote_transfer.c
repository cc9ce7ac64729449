/* remote_transfer.c - what tests/bench/mpi.sh measures on a simdevice
 * device, local or remote: host -> device transfers (omp_target_memcpy,
 * data_submit) of 64 KiB, 1, 4 and 16 MiB as GB/s ("xfer_<size>_GBps"),
 * the same device -> host (data_retrieve, "back_<size>_GBps"),
 * and the launch latency of an empty target region ("empty_launch_us");
 * medians of 21 after 3 warm-ups. Timed with CLOCK_MONOTONIC, in
 * nanoseconds as mpi_pingpong.c's MPI_Wtime (Open MPI's MPI_Wtick() is
 * 1e-9), not omp_get_wtime: libomp's counts whole microseconds
 * (omp_get_wtick() 1e-6), 1% of a 1 MiB copy, 10% of a 64 KiB one. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  static const int sizes[] = {64 << 10, 1 << 20, 4 << 20, 16 << 20};
  char *buf = malloc(16 << 20);
  memset(buf, 1, 16 << 20);
  char *d = omp_target_alloc(16 << 20, dev);
  double t[21];
  for (int i = -3; i < 21; i++) {
    double t0 = now();
#pragma omp target
    {
    }
    if (i >= 0)
      t[i] = now() - t0;
  }
  qsort(t, 21, sizeof t[0], cmp);
  printf("empty_launch_us %.2f us\n", t[10] * 1e6);
  for (int back = 0; back < 2; back++)
    for (int s = 0; s < 4; s++) {
      for (int i = -3; i < 21; i++) {
        double t0 = now();
        if ((back ? omp_target_memcpy(buf, d, sizes[s], 0, 0, host, dev)
                  : omp_target_memcpy(d, buf, sizes[s], 0, 0, dev, host)) != 0)
          return 1;
        if (i >= 0)
          t[i] = now() - t0;
      }
      qsort(t, 21, sizeof t[0], cmp);
      printf("%s_%dKiB_GBps %.3f GB/s\n", back ? "back" : "xfer",
             sizes[s] >> 10, sizes[s] / t[10] / 1e9);
    }
  omp_target_free(d, dev);
  free(buf);
  return 0;
}
