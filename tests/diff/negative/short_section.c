/* short_section.c - the kernel writes one element past the mapped section.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: vals|past the end|out of bounds */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 1025; /* the section, n - 1 ints, is exactly one 4 KiB page */
  int *vals = malloc(n * sizeof *vals);
#pragma omp target map(tofrom : vals[0:n - 1])
  for (int i = 0; i < n; i++) vals[i] = i;
  printf("ran past the section\n");
  free(vals);
  return 3;
}
