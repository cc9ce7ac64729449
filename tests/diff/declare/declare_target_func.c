/* declare_target_func.c - a declare target function called from kernels. */
#include "check.h"

#pragma omp declare target
static int square(int x) { return x * x; }
#pragma omp end declare target

int main(void) {
  int out[20];
#pragma omp target teams distribute parallel for map(from : out)
  for (int i = 0; i < 20; i++) out[i] = square(i) + 1;
  for (int i = 0; i < 20; i++) CHECK_EQ(out[i], i * i + 1);
  return check_finish();
}
