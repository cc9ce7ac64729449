/* data_in_parallel.c - each host thread has its own target data region
 * around two kernels. */
#include "check.h"

int main(void) {
  int out[4][32];
#pragma omp parallel num_threads(4)
  {
#pragma omp for
    for (int t = 0; t < 4; t++) {
      int *mine = out[t];
#pragma omp target data map(from : mine[0:32])
      {
#pragma omp target
        for (int i = 0; i < 32; i++) mine[i] = t;
#pragma omp target
        for (int i = 0; i < 32; i++) mine[i] += i;
      }
    }
  }
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < 32; i++) CHECK_EQ(out[t][i], t + i);
  return check_finish();
}
