/* implicit_array.c - an array used without a map clause is tofrom. */
#include "check.h"

int main(void) {
  int a[20];
  for (int i = 0; i < 20; i++) a[i] = i;
#pragma omp target
  for (int i = 0; i < 20; i++) a[i] = a[i] * a[i];
  for (int i = 0; i < 20; i++) CHECK_EQ(a[i], i * i);
  return check_finish();
}
