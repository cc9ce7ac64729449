/* privileges_dropped_later.c - a program started as root offloads, then
 * drops to `nobody` and runs a kernel that never ends, under
 * SIMDEVICE_TIMEOUT (the device process, started as root, may no longer be
 * signalled by the program).
 * simtarget-only
 * env: SIMDEVICE_TIMEOUT=1 SIMTARGET_KEEP_GOING=1
 * expect-stderr: did not finish within 1 s
 * expect: the endless kernel is still ended after 1 s (the host does not
 * wait for ever), and the restarted device runs with the program's new
 * credentials. Not root: says so and passes. */
#define _GNU_SOURCE
#include <grp.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  if (geteuid() != 0) {
    printf("not root: skipped\nPASS\n");
    return 0;
  }
  int uid = -1;
#pragma omp target map(from : uid)
  uid = (int)geteuid();
  CHECK_EQ(uid, 0);
  CHECK_EQ(setgroups(0, NULL), 0);
  CHECK_EQ(setgid(65534), 0);
  CHECK_EQ(setuid(65534), 0);
  volatile int forever = 1;
#pragma omp target map(to : forever)
  while (forever && !omp_is_initial_device())
    usleep(1000);
#pragma omp target map(from : uid)
  uid = (int)geteuid();
  CHECK_EQ(uid, 65534);
  return check_finish();
}
/* mpi-skip: drops the program's credentials, which the device rank (another process, maybe on another machine) does not follow */
