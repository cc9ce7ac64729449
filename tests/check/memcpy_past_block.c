/* omp_target_memcpy of 100 ints into a block omp_target_alloc gave for 99:
 * nothing is copied and the routine fails; the program goes on (it does
 * not look at the status), so only the finding tells.
 * check-finding: memory-routine-failed - omp_target_memcpy
 * check-stdout: ^copied$ */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int n = 100;
  int *src = calloc(n, sizeof *src);
  int *block = omp_target_alloc((n - 1) * sizeof *block, dev);
  omp_target_memcpy(block, src, n * sizeof *src, 0, 0, dev, host);
  printf("copied\n");
  omp_target_free(block, dev);
  free(src);
  return 0;
}
