// A `target nowait` region's result read before the `taskwait`: on a GPU
// the copy back may not have landed. Under memcheck with
// SIMTARGET_CHECK=stale the pending bytes are undefined until it lands, so
// memcheck reports the first use of them. (Seen when the read comes after
// the region's task started, while its kernel runs: here the host does
// other work first and the kernel is long. libomptarget is not called
// when libomp creates the task, so a read before it starts is not seen.)
// memcheck-expect: nowait_read_early.c:34
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 256
int *result;

int main(void) {
  result = calloc(N, sizeof *result);
  int early = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp target nowait map(from: result[0:N])
    for (int i = 0; i < N; i++) {
      volatile double x = 0;
      for (int k = 0; k < 2000000; k++)
        x += k;
      result[i] = i + 1 + (x < 0);
    }
    for (int t = 0; t < 20; t++) /* other work of the host, 2 s */
      usleep(100000);
    /* too early: the taskwait comes later */
    for (int i = 0; i < N; i++)
      early += result[i];
    if (early > 0)
      printf("early sum %d\n", early);
#pragma omp taskwait
  }
  printf("sum after taskwait %d\n", result[N - 1]);
  free(result);
  return 0;
}
