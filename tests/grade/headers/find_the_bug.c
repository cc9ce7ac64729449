// An exercise whose answer is a broken program: simtarget must diagnose it.
// No expectations file in this folder: these header fields are read.
// expect-exit: 1
// expect-stderr: not device memory
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double *x = malloc(10 * sizeof *x);
  for (int i = 0; i < 10; i++)
    x[i] = i;
  double s = 0;
#pragma omp target map(tofrom: s) /* x itself is not mapped */
  for (int i = 0; i < 10; i++)
    s += x[i];
  printf("s = %g\n", s);
  free(x);
  return 0;
}
