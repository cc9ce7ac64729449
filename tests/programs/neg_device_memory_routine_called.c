/* neg_device_memory_routine_called.c - a kernel that calls a device memory
 * routine (a host routine, whose effect in a target region is unspecified)
 * is stopped, with a message naming the routine; the image still loads and
 * the kernels before it run.
 * cflags: -O2
 * simtarget-only
 * (LLVM's CPU plugin runs the kernel in the host process, where the call
 * reaches the host's libomptarget and returns.)
 * expect-exit: 1
 * expect-stderr: omp_target_is_present was called in device code
 * expect: the first region runs ("before" is printed), the second stops. */
#include <omp.h>
#include <stdio.h>

static int table[16];

int main(void) {
  int ran = 0;
#pragma omp target map(from : ran)
  ran = 1;
  printf("before: %d\n", ran);
  fflush(stdout);
  int present = -1;
#pragma omp target map(to : table) map(from : present)
  present = omp_target_is_present(table, omp_get_initial_device());
  printf("not reached: %d\n", present);
  return 3;
}
