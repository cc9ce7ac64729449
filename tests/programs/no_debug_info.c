// Compiled without -g, a failed construct has no variable names and no
// source location: the report says once that -g gives them.
// simtarget-only
// cflags: -fopenmp-version=51
// versions: 15 16 19 22
// expect-exit: 1
// expect-stderr: note: the program has no debug information: compile it with -g for variable names and source locations
#include <stdio.h>
int main(void) {
  int a[4] = {1, 2, 3, 4}, s = 0;
#pragma omp target map(present, to : a) map(tofrom : s)
  s = a[0];
  printf("%d\n", s);
  return 0;
}
