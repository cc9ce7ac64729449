/* nowait_unwaited_stack.c - a `target nowait` region that maps arrays of
 * main's own stack frame, and that nothing waits for: main prints its
 * result and returns. libomp runs the region's task only as the program
 * exits, after the device code was unloaded.
 * simtarget-only
 * cflags: -g
 * repeat: 3
 * expect-stderr-not: fatal error|host version runs
 * expect: nothing of the region runs on the host after main returned (its
 * host version would write into main's ended stack frame: the program died
 * of SIGSEGV and lost its output); the program's output and exit status
 * 0 are kept. Whether the region ran before the exit depends on libomp's
 * hidden helper thread (clang 13+): when it did not, stderr says what was
 * left ("started after the program began to exit" or "still running");
 * either outcome is correct, so the message is not required here. */
#include <stdio.h>
#include <string.h>

static void fill(int *a, int *b, int n) {
#pragma omp target map(tofrom : a[0:n]) map(to : b[0:n]) nowait
  for (int i = 0; i < n; i++)
    a[i] = b[i] * 2 + i;
}

int main(void) {
  int a[16384], b[16384];
  memset(b, 1, sizeof b);
  fill(a, b, 16384);
  printf("main is done\nPASS\n");
  return 0;
}
