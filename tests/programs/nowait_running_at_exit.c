// A `target nowait` region still running when main returns (no taskwait):
// simtarget says so, naming the construct and its location, and waits for
// it before unloading the device code (unloading under the running kernel
// made it fault, or left libomp's exit waiting forever for its task).
// simtarget-only
// versions: 16 19 22
// ppc64le-skip: the kernel times itself with __builtin_ia32_rdtsc (x86 only)
// cflags: -g
// expect-stderr: the `target nowait` construct at [^ ]*nowait_running_at_exit.c:18:1 \(in main\) was still running on device 0 when the program exited
// expect-stderr-not: fatal error|unloading the image
#include <stdio.h>
#include <unistd.h>
int main(void) {
  static int a[16];
  /* 2e9 time-stamp cycles (under a second at 2.5 GHz and more, however
   * busy the machine): longer than main's sleep, which lets the task start
   * (a region that has not started at exit is not checked here) */
#pragma omp target map(tofrom : a) nowait
  {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < 2000000000ULL) {
    }
    a[0] = 1;
  }
  usleep(300000);
  puts("PASS");
  return 0;
}
