/* after_exit_data.c - use_device_ptr's device address kept after the data
 * was deleted, then dereferenced in a kernel via is_device_ptr.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: was the device copy of `p\[0:n\]`.*unmapped and freed.*the value of `dp` */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 1 << 18;
  int *p = malloc(n * sizeof *p);
  int *dp = NULL;
#pragma omp target enter data map(to : p[0:n])
#pragma omp target data use_device_ptr(p)
  dp = p;
#pragma omp target exit data map(delete : p[0:n])
  int got = 0;
#pragma omp target is_device_ptr(dp) map(from : got)
  got = dp[5];
  printf("read %d from freed device memory\n", got);
  free(p);
  return 3;
}
