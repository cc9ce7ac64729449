/* close_modifier.c - map(close, tofrom:): only a hint, same result. */
#include "check.h"

int main(void) {
  int a[24];
  for (int i = 0; i < 24; i++) a[i] = i;
#pragma omp target map(close, tofrom : a)
  for (int i = 0; i < 24; i++) a[i] *= 4;
  for (int i = 0; i < 24; i++) CHECK_EQ(a[i], 4 * i);
  return check_finish();
}
