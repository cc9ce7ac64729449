/* usm_early_start_fails.c - a `requires unified_shared_memory` program runs
 * in the host process and drops device 0's process, started early when the
 * program loaded. When that start fails after it got going, the failure is
 * said at exit every time, however late it comes: here the device process
 * is `timeout 0.3 tail -c0 -f <server>` (SIMDEVICE_WRAPPER), which prints
 * nothing and ends with status 124 after 0.3 s, long after the first target
 * region dropped it (the start is still on its way then, deterministically).
 * The program sets the variable itself and runs itself again, since the
 * test harness cannot pass spaces.
 * simtarget-only
 * ppc64le-skip: requires unified_shared_memory, which simdevice serves by running kernels in the (x86-64) host process
 * expect-stderr: device 0 failed to start.*at its early start
 * expect: the program runs correctly in the host process (PASS) and its
 * stderr says that the unused device's early start failed. */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "reexec.h"

#pragma omp requires unified_shared_memory

#define N 256
int *data; /* a global pointer to heap memory, as users write it */

int main(int argc, char **argv) {
  (void)argc;
  if (!getenv("USM_EARLY_START_FAILS_RERUN")) {
    setenv("USM_EARLY_START_FAILS_RERUN", "1", 1);
    setenv("SIMDEVICE_WRAPPER", "timeout 0.3 tail -c0 -f", 1);
    setenv("SIMDEVICE_EARLY_START", "1", 1);
    reexec_self("/proc/self/exe", argv);
    return 2;
  }
  data = malloc(N * sizeof *data);
  for (int i = 0; i < N; i++)
    data[i] = i;
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    data[i] *= 2;
  long sum = 0;
  for (int i = 0; i < N; i++)
    sum += data[i];
  CHECK_EQ(sum, (long)N * (N - 1));
  free(data);
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
