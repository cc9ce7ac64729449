/* data_two_arrays_order.c - enter data of two arrays, exit in the other
 * order, kernels between use both. */
#include "check.h"

int main(void) {
  int x[16], y[16];
  for (int i = 0; i < 16; i++) { x[i] = i; y[i] = 0; }
#pragma omp target enter data map(to : x, y)
#pragma omp target
  for (int i = 0; i < 16; i++) y[i] = x[i] * 2;
#pragma omp target exit data map(release : x)
#pragma omp target exit data map(from : y)
  for (int i = 0; i < 16; i++) CHECK_EQ(y[i], 2 * i);
  return check_finish();
}
