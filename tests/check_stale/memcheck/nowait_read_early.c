// A `target nowait` region's result polled before the `taskwait`: the host
// waits for the results to appear in its own copy, which on a GPU they need
// not do until the taskwait. Under memcheck with SIMTARGET_CHECK=stale the
// pending bytes are undefined from the kernel's launch until the copy back
// lands, so memcheck reports the first use of them. (libomptarget is not
// called when libomp creates the task, so reads before the region starts
// see defined zeros; the polling reaches the window whatever the machine's
// speed, where a fixed sleep before one read did not.)
// memcheck-expect: nowait_read_early.c:36
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 256
int *result;

int main(void) {
  result = calloc(N, sizeof *result);
  int early = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp target nowait map(from: result[0:N])
    for (int i = 0; i < N; i++) {
      volatile double x = 0;
      for (int k = 0; k < 4000000; k++)
        x += k;
      result[i] = i + 1 + (x < 0);
    }
    /* too early: polls the host's copy, at most 60 s */
    for (int t = 0; t < 6000; t++) {
      usleep(10000);
      early = 0;
      for (int i = 0; i < N; i++)
        early += result[i];
      if (early > 0)
        break;
    }
    printf("early sum %d\n", early);
#pragma omp taskwait
  }
  printf("sum after taskwait %d\n", result[N - 1]);
  free(result);
  return 0;
}
