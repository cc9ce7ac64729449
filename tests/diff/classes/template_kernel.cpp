// template_kernel.cpp - a function template instantiated for two types.
#include "check.h"

template <typename T>
static T dot(const T *a, const T *b, int n) {
  T s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : a[0:n], b[0:n])
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

int main() {
  int ia[100], ib[100];
  double da[100], db[100];
  for (int i = 0; i < 100; i++) { ia[i] = i; ib[i] = 2; da[i] = 0.5; db[i] = i; }
  CHECK_EQ(dot(ia, ib, 100), 9900);
  CHECK(dot(da, db, 100) == 2475.0);
  return check_finish();
}
