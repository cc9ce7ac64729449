/* unmapped_heap.c - a heap pointer used in a kernel with no map of its
 * data: works only where host and device share memory.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: buf */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 1 << 20;
  int *buf = malloc(n * sizeof *buf);
  buf[0] = 1;
#pragma omp target
  buf[0] += 1;
  printf("ran with an unmapped pointer: %d\n", buf[0]);
  free(buf);
  return 3;
}
