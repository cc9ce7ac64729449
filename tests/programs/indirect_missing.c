/* indirect_missing.c - a kernel calls a host function that has no device
 * version (not declare target indirect).
 * versions: 14 15 16 19 22
 * cflags: -fopenmp-version=51
 * simtarget-only
 * expect-exit: 1
 * expect-stderr: kernel `__omp_offloading_[^`]*` called host function `helper` at 0x[0-9a-f]+: `helper` is not declare target indirect
 * expect: the device cannot call host code: the call faults in the device
 * process, and the runtime names the host function and the rule broken.
 * Exit 3 means host code ran on the device unnoticed. */
#include <stdio.h>
#include "check.h"

int add_one(int x) { return x + 1; }
#pragma omp declare target to(add_one) indirect

/* Not declare target at all; noinline keeps its address real. */
__attribute__((noinline)) int helper(int x) { return x * 100; }

struct op {
  int (*fn)(int);
};

int main(int argc, char **argv) {
  (void)argv;
  struct op o = {argc > 5 ? add_one : helper};
  int r = 0;
#pragma omp target map(to : o) map(from : r)
  r = o.fn(4);
  printf("r = %d (the host function ran on the device)\n", r);
  return 3;
}
