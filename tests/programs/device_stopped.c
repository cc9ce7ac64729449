/* device_stopped.c - the device process is stopped (SIGSTOP, a debugger)
 * while a synchronous and then an asynchronous kernel wait for it, and
 * continued a second later.
 * simtarget-only
 * repeat: 3
 * expect-stderr: device 0 \(pid [0-9]+\) is stopped
 * expect: both kernels complete with the right results once the device
 * continues, and the host does not spin while a synchronous kernel waits
 * (its CPU time over the stopped second stays well below it). */
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static int device_pid;

static void *continue_later(void *arg) {
  (void)arg;
  struct timespec t = {1, 0};
  nanosleep(&t, NULL);
  kill(device_pid, SIGCONT);
  return NULL;
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int main(void) {
#pragma omp target map(from : device_pid)
  device_pid = (int)getpid();
  CHECK(device_pid != getpid());
  for (int round = 0; round < 2; round++) {
    int result = 0;
    kill(device_pid, SIGSTOP);
    pthread_t t;
    pthread_create(&t, NULL, continue_later, NULL);
    double cpu0 = cpu_seconds();
    if (round == 0) {
#pragma omp target map(from : result)
      result = 42;
    } else {
#pragma omp target map(from : result) nowait
      result = 43;
#pragma omp taskwait
    }
    double cpu = cpu_seconds() - cpu0;
    pthread_join(t, NULL);
    CHECK_EQ(result, 42 + round);
    /* About 1 s passed while stopped; the synchronous wait sleeps. (In the
     * nowait round libomp's own taskwait may spin, so it is not measured.) */
    if (round == 0)
      CHECK(cpu < 0.5);
  }
  return check_finish();
}
