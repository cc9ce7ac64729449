/* host_ptr_in_struct.c - a host pointer smuggled in a firstprivate struct
 * is dereferenced on the device.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: (read|wrote) (host )?address|not device memory */
#include <stdlib.h>
#include "check.h"

struct view { int *p; };

int main(void) {
  struct view v = {malloc((1 << 20) * sizeof(int))};
  v.p[0] = 5;
  int got = 0;
#pragma omp target firstprivate(v) map(from : got)
  got = v.p[0];
  printf("read %d through a host pointer\n", got);
  free(v.p);
  return 3;
}
