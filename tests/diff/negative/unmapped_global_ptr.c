/* unmapped_global_ptr.c - a global pointer's data never mapped; the kernel
 * reads through it.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: the pointer came from argument [0-9]+ `gdata`, a pointer mapped with no data
 */
#include <stdlib.h>
#include "check.h"

double *gdata;

int main(void) {
  gdata = malloc((1 << 20) * sizeof *gdata);
  gdata[3] = 1.0;
  double got = 0;
#pragma omp target map(from : got)
  got = gdata[3];
  printf("read %f through an unmapped global pointer\n", got);
  free(gdata);
  return 3;
}
