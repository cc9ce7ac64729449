/* global_ptr_threads.c - a global pointer section mapped by target data,
 * used by kernels launched from several host threads (item 1).
 */
#include <stdlib.h>
#include "check.h"

int *gbuf;
#define N 1024

int main(void) {
  gbuf = calloc(N, sizeof *gbuf);
#pragma omp target data map(tofrom : gbuf[0:N])
  {
#pragma omp parallel for num_threads(4)
    for (int t = 0; t < 4; t++) {
#pragma omp target map(gbuf[0:N])
      for (int i = t; i < N; i += 4) gbuf[i] = i + 1;
    }
  }
  for (int i = 0; i < N; i++) CHECK_EQ(gbuf[i], i + 1);
  free(gbuf);
  return check_finish();
}
