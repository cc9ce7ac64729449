/* exit_during_kernel.c - main() returns while another host thread waits on
 * a kernel that never ends.
 * simtarget-only
 * expect: the program exits (status 0) within seconds: program exit does
 * not wait for device work that cannot finish. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static volatile int started;

static void *endless(void *arg) {
  (void)arg;
  volatile int forever = 1;
  started = 1;
#pragma omp target map(to : forever)
  while (forever) usleep(1000);
  return NULL;
}

int main(void) {
  int warm = 0;
#pragma omp target map(from : warm)
  warm = 1;
  CHECK_EQ(warm, 1);
  pthread_t t;
  pthread_create(&t, NULL, endless, NULL);
  while (!started) usleep(1000);
  struct timespec pause = {0, 300 * 1000000L};
  nanosleep(&pause, NULL);
  return check_finish(); /* exit() while `t` waits on its kernel */
}
/* mpi-skip: a rank given up at exit makes mpirun's exit status non-zero (tests/mpi.sh checks this program its own way) */
