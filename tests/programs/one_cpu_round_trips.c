/* one_cpu_round_trips.c - a program confined to one CPU (taskset, a CI
 * container with one core): the device process inherits the confinement,
 * so host and device threads share that CPU, and each region's round trip
 * must hand the CPU over by sleeping. A device thread that spins and calls
 * sched_yield() there after its reply keeps the CPU until the scheduler
 * preempts it: 36 us a region instead of 6.6 us on the 2-core test VM. The
 * program confines itself, then runs itself again so that the device
 * process starts confined too. The kernels read the device thread's own
 * count of voluntary context switches (sleeps), the host its own.
 * simtarget-only
 * expect: the kernels run confined to one CPU, 2000 small map(tofrom)
 * regions give correct results, and the device or the host thread sleeps
 * in most of them instead of spinning. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"

#define REGIONS 2000
#define N 512

/* The calling thread's voluntary context switches so far, or -1. */
#pragma omp declare target
static long voluntary_switches(void) {
  FILE *f = fopen("/proc/thread-self/status", "r");
  if (f == NULL)
    return -1;
  char line[256];
  long n = -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
      break;
  fclose(f);
  return n;
}
#pragma omp end declare target

double *data; /* a global pointer, as users write them */

int main(int argc, char **argv) {
  (void)argc;
  if (getenv("ONE_CPU_ROUND_TRIPS") == NULL) {
    int cpu = sched_getcpu();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu < 0 ? 0 : cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0 ||
        setenv("ONE_CPU_ROUND_TRIPS", "1", 1) != 0) {
      perror("one_cpu_round_trips: confining to one CPU");
      return 1;
    }
    execv("/proc/self/exe", argv);
    perror("one_cpu_round_trips: running again");
    return 1;
  }
  data = calloc(N, sizeof *data);
  int device_cpus = 0;
#pragma omp target map(from : device_cpus)
  {
    cpu_set_t set;
    CPU_ZERO(&set);
    device_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
  }
  CHECK_EQ(device_cpus, 1);
  for (int r = 0; r < 50; r++) { /* the device's threads settle */
#pragma omp target map(tofrom : data[0:N])
    data[r % N] += 1;
  }
  long before = -1, after = -1, host_before = voluntary_switches();
#pragma omp target map(from : before)
  before = voluntary_switches();
  for (int r = 0; r < REGIONS; r++) {
#pragma omp target map(tofrom : data[0:N])
    data[r % N] += 1;
  }
#pragma omp target map(from : after)
  after = voluntary_switches();
  long host_after = voluntary_switches();
  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += data[i];
  CHECK(sum == 50 + REGIONS);
  printf("voluntary context switches: device thread %ld, host thread %ld\n",
         after - before, host_after - host_before);
  /* Which side sleeps depends on who is woken when; one of them must. */
  if (before >= 0 && after >= 0 && host_before >= 0 && host_after >= 0)
    CHECK(after - before + host_after - host_before >= REGIONS / 2);
  free(data);
  return check_finish();
}
