// ref_array.cpp - a reference to an array parameter, mapped by name.
#include "check.h"

static void inc(int (&a)[50]) {
#pragma omp target map(tofrom : a)
  for (int i = 0; i < 50; i++) a[i]++;
}

int main() {
  int a[50] = {};
  inc(a);
  inc(a);
  for (int i = 0; i < 50; i++) CHECK_EQ(a[i], 2);
  return check_finish();
}
