// capture_ptr_value.cpp - a [=] lambda capturing a pointer whose section is
// mapped (item 3).
#include <cstdlib>
#include "check.h"

int main() {
  int n = 100;
  int *p = static_cast<int *>(std::malloc(n * sizeof(int)));
  for (int i = 0; i < n; i++) p[i] = i;
  auto twice = [=](int i) { p[i] *= 2; };
#pragma omp target map(tofrom : p[0:n])
  for (int i = 0; i < n; i++) twice(i);
  for (int i = 0; i < n; i++) CHECK_EQ(p[i], 2 * i);
  std::free(p);
  return check_finish();
}
