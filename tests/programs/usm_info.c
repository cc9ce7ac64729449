/* usm_info.c - what LIBOMPTARGET_INFO says about unified_shared_memory.
 * ppc64le-skip: requires unified_shared_memory or unified_address, which simdevice serves by running kernels in the (x86-64) host process
 * simtarget-only
 * versions: 14 16 19 22
 * env: LIBOMPTARGET_INFO=0x10
 * expect-stderr: requires unified_shared_memory.*isolation is off.*host process
 * expect: a program that requires unified_shared_memory runs in the host
 * process, and LIBOMPTARGET_INFO (plugin bit 0x10) says so and why, with the
 * kernels it runs there; the region still runs on the device runtime (not
 * the initial device) and writes host memory through a plain pointer. */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

#pragma omp requires unified_shared_memory

int main(void) {
  int *data = calloc(16, sizeof(int));
  if (data == NULL)
    return 2;
  int initial = 1;
#pragma omp target map(from : initial)
  {
    initial = omp_is_initial_device();
    data[3] = 42;
  }
  CHECK_EQ(initial, 0);
  CHECK_EQ(data[3], 42);
  free(data);
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
