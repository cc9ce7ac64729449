// ref_to_ptr.cpp - a reference to a pointer, its section mapped.
#include <cstdlib>
#include "check.h"

static void fill(int *&p, int n) {
#pragma omp target map(tofrom : p[0:n])
  for (int i = 0; i < n; i++) p[i] = i * i;
}

int main() {
  int *p = static_cast<int *>(std::malloc(40 * sizeof(int)));
  fill(p, 40);
  for (int i = 0; i < 40; i++) CHECK_EQ(p[i], i * i);
  std::free(p);
  return check_finish();
}
