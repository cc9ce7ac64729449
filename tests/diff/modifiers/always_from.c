/* always_from.c - map(always, from:) copies back although the array stays
 * mapped by the outer target data. */
#include "check.h"

int main(void) {
  int a[8] = {0};
#pragma omp target data map(alloc : a)
  {
#pragma omp target map(always, from : a)
    for (int i = 0; i < 8; i++) a[i] = 5 * i;
    for (int i = 0; i < 8; i++) CHECK_EQ(a[i], 5 * i);
  }
  return check_finish();
}
