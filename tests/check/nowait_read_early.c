/* A `target nowait` histogram read before the `taskwait`: the host sums
 * hist right after creating the region, while the kernel still runs, so it
 * reads its own zeros (on a GPU as on the host fallback). The kernel runs
 * for a second of device time so that its copy back has not landed when
 * the host reads, also with the host under memcheck.
 * check-finding: nowait-read-early hist[0:16] nowait_read_early.c:24
 * check-args: --only plain,stale,stale-memcheck
 * check-versions: 14 22
 * check-stdout: ^after taskwait 4096$ */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define BINS 16
#define N 4096
int *hist;

int main(void) {
  hist = calloc(BINS, sizeof *hist);
  int early = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp target nowait map(from : hist[0:BINS])
    {
      double t0 = omp_get_wtime();
      for (int b = 0; b < BINS; b++)
        hist[b] = 0;
      for (int i = 0; i < N; i++)
        hist[(i * 7) % BINS]++;
      while (omp_get_wtime() - t0 < 1.0) /* a long kernel */
        ;
    }
    for (int b = 0; b < BINS; b++) /* too early: the taskwait comes below */
      early += hist[b];
    if (early != N)
      printf("early %d\n", early);
#pragma omp taskwait
  }
  int total = 0;
  for (int b = 0; b < BINS; b++)
    total += hist[b];
  printf("after taskwait %d\n", total);
  free(hist);
  return total != N;
}
