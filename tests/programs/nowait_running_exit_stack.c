/* nowait_running_exit_stack.c - a `target nowait` region still running
 * when main returns, mapping `from` an array of main's stack frame (no
 * taskwait: a user's mistake, but a common one). Its copy back would land
 * in main's ended frame, under the frames of the exit itself: simtarget
 * drops it, says what was left, and the program keeps its output and exit
 * status.
 * simtarget-only
 * ppc64le-skip: the ppc64le device starts under qemu in more than main's 0.1 s, so the region only starts once the program exits (it is skipped then, as nowait_started_at_exit.c checks)
 * cflags: -g
 * expect-stderr: the `target nowait` construct at [^ ]*nowait_running_exit_stack.c:27:1 \(in main\) was still running on device 0 when the program exited .*nothing more of it runs on the host \(its copies back are dropped\)
 * expect-stderr-not: fatal error|unloading the image
 * expect: the exit does not crash (the copy back of 64 KiB into main's
 * ended frame overwrote the exit's own frames: SIGSEGV in every run, clang
 * 15 and 19), stdout keeps "main is done" and PASS, exit status 0.
 * The kernel runs 0.5 s and main sleeps 0.1 s first, so the region has
 * started (on a libomp helper thread, clang 13-22) and is still running at
 * the exit. One run: the old code crashed in every run. The exit waits for
 * libomp to poll the region's task to its end too: a task still queued hung
 * libomp's own shutdown in about 1 run in 140 under load (README,
 * "Reliability"). */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  int a[16384];
#pragma omp target map(from : a) nowait
  {
    double start = omp_get_wtime();
    while (omp_get_wtime() - start < 0.5)
      ;
    for (int i = 0; i < 16384; i++)
      a[i] = 0x5a5a5a5a + i;
  }
  usleep(100000);
  printf("main is done\nPASS\n");
  return 0;
}
/* mpi-skip: a remote device starts (MPI, the rank, its device process) in more than main's 0.1 s, so the region only starts once the program exits */
