// A correct program: main ends while another host thread's `target` region
// is still running, its kernel has already written the array mapped
// `tofrom`. The entry is mapped at the end only because the region never
// reached its end: no `exit data` is missing, so nothing is reported
// (mapped-at-exit used to name d[0:1024] here; seen first as a flaky extra
// finding of tests/programs/exit_others_offloading.c).
// cflags: -O2 -pthread
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define N 1024
static double data[N];
static volatile int started;

static void *long_region(void *arg) {
  double *d = arg;
  started = 1;
#pragma omp target map(tofrom : d[0:N])
  {
    for (int i = 0; i < N; i++)
      d[i] = i + 1;
    usleep(5000000); /* still running when main returns */
  }
  return NULL;
}

int main(void) {
  int warm = 0;
#pragma omp target map(from : warm)
  warm = 1;
  pthread_t t;
  pthread_create(&t, NULL, long_region, data);
  while (!started)
    usleep(1000);
  usleep(500000); /* the kernel has written d by now */
  printf("warm %d, leaving with the region running\n", warm);
  return 0;
}
