/* idle_device_killed.c - the device process is killed between two
 * constructs (OOM killer, a user's kill), while nothing runs on it.
 * simtarget-only
 * expect-stderr: restarted .*killed by signal 9.* while idle
 * expect: the next kernel is not blamed: the device restarts, the data
 * mapped before the death is still there, and the results are right. */
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

#define N 1000

int main(void) {
  double *a = malloc(N * sizeof *a);
  if (!a) return 2;
  for (int i = 0; i < N; i++) a[i] = i;
  int device_pid = 0;
#pragma omp target data map(tofrom : a[0:N])
  {
#pragma omp target map(from : device_pid)
    device_pid = (int)getpid();
    CHECK(device_pid != getpid());
    kill(device_pid, SIGKILL);
    struct timespec t = {0, 200 * 1000000L};
    nanosleep(&t, NULL); /* it is dead and idle now */
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++) a[i] += 1;
  }
  for (int i = 0; i < N; i++) CHECK(a[i] == i + 1);
  free(a);
  return check_finish();
}
