/* update_from_unmapped_write.c - a kernel writes through a pointer whose
 * data was mapped only with a length of 1.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: w|past the end|out of bounds */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 4096;
  int *w = calloc(n, sizeof *w);
#pragma omp target map(tofrom : w[0:1])
  for (int i = 0; i < n; i++) w[i] = 1;
  printf("wrote past a 1-element section\n");
  free(w);
  return 3;
}
