/* usm_fault.c - a kernel that faults under unified_shared_memory.
 * ppc64le-skip: requires unified_shared_memory or unified_address, which simdevice serves by running kernels in the (x86-64) host process
 * simtarget-only
 * versions: 14 16 19 22
 * expect-exit: 139
 * expect-stdout: before the region
 * expect-stderr: kernel `__omp_offloading_[^`]*_main_l[0-9]+` faulted \(SIGSEGV\) at address 0x10.*unified_shared_memory
 * expect: the kernel runs in the host process (no isolation), so a wild
 * pointer there ends the program with SIGSEGV as on LLVM's host device; before
 * that, stderr names the kernel and the address it touched, and what the
 * program printed before the region is not lost. */
#include <omp.h>
#include <stdio.h>

#pragma omp requires unified_shared_memory

int main(void) {
  int *wild = (int *)16;
  printf("before the region\n");
#pragma omp target teams distribute parallel for is_device_ptr(wild) num_teams(2)
  for (int i = 0; i < 64; i++)
    if (i == 40)
      wild[0] = i;
  printf("PASS\n"); /* not reached */
  return 0;
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
