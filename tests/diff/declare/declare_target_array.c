/* declare_target_array.c - a declare target global array: update to/from
 * moves it, kernels use the device copy without mapping. */
#include "check.h"

#pragma omp declare target
int table[64];
#pragma omp end declare target

int main(void) {
  for (int i = 0; i < 64; i++) table[i] = i;
#pragma omp target update to(table)
#pragma omp target
  for (int i = 0; i < 64; i++) table[i] *= 3;
  CHECK_EQ(table[5], 5);
#pragma omp target update from(table)
  for (int i = 0; i < 64; i++) CHECK_EQ(table[i], 3 * i);
  return check_finish();
}
