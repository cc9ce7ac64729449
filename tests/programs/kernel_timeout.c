/* kernel_timeout.c - a kernel that never ends, with SIMDEVICE_TIMEOUT set.
 * simtarget-only
 * env: SIMDEVICE_TIMEOUT=1
 * expect-exit: 1
 * expect-stderr: kernel `__omp_offloading_[^`]*_main_l[0-9]+` did not finish within 1 s \(SIMDEVICE_TIMEOUT=1\)
 * expect: the construct fails after about a second, naming the kernel and
 * the time, instead of hanging. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  volatile int forever = 1;
  printf("start\n");
#pragma omp target map(to : forever)
  while (forever) usleep(1000);
  printf("the endless kernel returned\n");
  return check_finish();
}
