/* update_to_from.c - target update to and from of a whole array. */
#include "check.h"

int main(void) {
  int a[32] = {0};
#pragma omp target data map(alloc : a)
  {
    for (int i = 0; i < 32; i++) a[i] = i;
#pragma omp target update to(a)
#pragma omp target
    for (int i = 0; i < 32; i++) a[i] += 1;
#pragma omp target update from(a)
    for (int i = 0; i < 32; i++) CHECK_EQ(a[i], i + 1);
  }
  return check_finish();
}
