/* ompt: trace, kernel-time 40
 * Kernels that sleep 40 ms on the device, synchronous and nowait, then one
 * short region after the taskwait: with device tracing each sleeping
 * kernel's record spans at least the 40 ms, timed by the device itself, and
 * lies within its target construct (a nowait one: before the region after
 * the taskwait), events.py kernel-time. */
#include <stdio.h>
#include <time.h>

#define SLEEP_NS 40000000L

#pragma omp declare target
static void sleep_on_device(void) {
  struct timespec t = {0, SLEEP_NS};
  while (nanosleep(&t, &t) != 0)
    ;
}
#pragma omp end declare target

static int ran[3], last;

int main(void) {
#pragma omp target map(tofrom : ran[0:3])
  {
    sleep_on_device();
    ran[0] = 1;
  }
#pragma omp target teams num_teams(2) map(tofrom : ran[0:3])
  {
    sleep_on_device();
    ran[1] = 1;
  }
#pragma omp target map(tofrom : ran[0:3]) nowait
  {
    sleep_on_device();
    ran[2] = 1;
  }
#pragma omp taskwait
#pragma omp target map(from : last)
  last = 1;
  int ok = ran[0] && ran[1] && ran[2] && last;
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
