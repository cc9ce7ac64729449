// lambda_template.cpp - a lambda passed to a function template whose body
// is a target loop: the usual portability-layer pattern (item 3).
#include <cstdlib>
#include "check.h"

template <typename F>
static void for_each_index(int n, F f) {
#pragma omp target teams distribute parallel for map(to : f)
  for (int i = 0; i < n; i++) f(i);
}

int main() {
  int n = 256;
  double *x = static_cast<double *>(std::malloc(n * sizeof(double)));
  for (int i = 0; i < n; i++) x[i] = i;
#pragma omp target enter data map(to : x[0:n])
  for_each_index(n, [=](int i) { x[i] = x[i] * 0.5; });
#pragma omp target exit data map(from : x[0:n])
  for (int i = 0; i < n; i++) CHECK(x[i] == 0.5 * i);
  std::free(x);
  return check_finish();
}
