// A `target nowait` region that main does not wait for: libomp runs its task
// only as the program exits, after clang's exit code has unregistered the
// device code. simtarget says so and skips the region (nowait_unwaited_exit.c),
// where it used to end the program with a fatal error (no device code). LLVM's own
// runtime fails it too (clang 16: "does not have a matching target pointer",
// abort; clang 19: signal 11).
// simtarget-only
// versions: 16 19 22
// cflags: -g
// expect-stderr: the `target nowait` construct at [^ ]*nowait_started_at_exit.c:18:1 \(in main\) started after the program began to exit|still running on device 0 when the program exited
// expect-stderr-not: fatal error
// The region lasts 0.3 s, so a task that does start before the exit is
// still running then (a region that ended before it would say nothing).
#include <omp.h>
#include <stdio.h>
int main(void) {
  static int a[16];
#pragma omp target map(tofrom : a) nowait
  {
    double start = omp_get_wtime();
    while (omp_get_wtime() - start < 0.3)
      ;
    a[0] = 1;
  }
  puts("PASS");
  return 0;
}
