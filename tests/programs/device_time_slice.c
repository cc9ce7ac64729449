/* device_time_slice.c - SIMDEVICE_SLICE_US reaches every thread of the
 * device process: the kernel's initial thread and the threads of a parallel
 * region inside it read their own slice with sched_getattr.
 * simtarget-only
 * env: SIMDEVICE_SLICE_US=250
 * expect: every device thread runs with a 250 us slice, the host's threads
 * keep the kernel's default (a kernel older than 6.12, or qemu-user, reports
 * no slice: then the program only checks that the region runs). */
#include <omp.h>
#include "check.h"
#include "slice.h"

#define THREADS 2

int main(void) {
  long long host = thread_slice_ns();
  long long device[THREADS + 1];
  for (int i = 0; i <= THREADS; i++)
    device[i] = -2;
#pragma omp target map(tofrom : device[0:THREADS + 1])
  {
    device[THREADS] = thread_slice_ns();
#pragma omp parallel num_threads(THREADS)
    device[omp_get_thread_num()] = thread_slice_ns();
  }
  for (int i = 0; i <= THREADS; i++)
    CHECK(device[i] != -2); /* every thread ran */
  if (host > 0 && device[THREADS] > 0) {
    CHECK(host != 250000);
    for (int i = 0; i <= THREADS; i++)
      CHECK_EQ(device[i], 250000);
  } else {
    printf("no slices reported (host %lld, device %lld): not checked\n", host,
           device[THREADS]);
  }
  return check_finish();
}
