/* implicit_ptr_interior.c - a pointer to the inside of a mapped array,
 * used implicitly: translated by its offset. */
#include "check.h"

int main(void) {
  int a[64];
  for (int i = 0; i < 64; i++) a[i] = i;
  int *mid = &a[32];
#pragma omp target data map(tofrom : a)
  {
#pragma omp target
    for (int i = 0; i < 8; i++) mid[i] = -mid[i];
  }
  for (int i = 0; i < 64; i++) CHECK_EQ(a[i], (i >= 32 && i < 40) ? -i : i);
  return check_finish();
}
