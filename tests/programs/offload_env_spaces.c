/* offload_env_spaces.c - OMP_TARGET_OFFLOAD=" Mandatory " (white space
 * around, other case, as the standard allows) with no device available.
 * simtarget-only
 * env: SIMDEVICE_NUM_DEVICES=0
 * expect-exit: 1
 * expect-stderr: offloading is mandatory
 * expect-stderr-not: not accepted
 * expect: the setting is honoured: the construct fails instead of running
 * on the host (the program sets the variable itself and runs itself again,
 * since the test harness cannot pass spaces). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "reexec.h"

int main(int argc, char **argv) {
  (void)argc;
  if (!getenv("OFFLOAD_ENV_SPACES_RERUN")) {
    setenv("OFFLOAD_ENV_SPACES_RERUN", "1", 1);
    setenv("OMP_TARGET_OFFLOAD", " Mandatory\t", 1);
    reexec_self("/proc/self/exe", argv);
    return 2;
  }
  int on_host = 0;
#pragma omp target map(from : on_host)
  on_host = omp_is_initial_device();
  printf("the construct ran (on the host: %d)\n", on_host);
  return check_finish();
}
