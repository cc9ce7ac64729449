/* unmapped_global_ptr.c - a global pointer's data never mapped; the kernel
 * reads through it.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: gdata
 * xfail: the fault at gdata + 24 is not tied to the implicit zero-length entry of gdata (base 0x...010, size 0, found nothing): simtarget attributes a faulting address only inside [begin, begin + size), so a size-0 entry matches only its exact base; it should name the unmapped pointer whose host value is the nearest base below the address */
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
