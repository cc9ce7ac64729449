/* host_threads.c - four host threads each offload their own heap section. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  enum { T = 4, N = 512 };
  int *data = malloc(T * N * sizeof *data);
  for (int i = 0; i < T * N; i++) data[i] = i;
#pragma omp parallel num_threads(T)
  {
#pragma omp for
    for (int t = 0; t < T; t++) {
      int *mine = data + t * N;
#pragma omp target map(tofrom : mine[0:N])
      for (int i = 0; i < N; i++) mine[i] = mine[i] * 3 + t;
    }
  }
  for (int i = 0; i < T * N; i++) CHECK_EQ(data[i], i * 3 + i / N);
  free(data);
  return check_finish();
}
