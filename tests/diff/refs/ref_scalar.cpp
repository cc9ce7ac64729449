// ref_scalar.cpp - a reference to a scalar, mapped tofrom explicitly and
// used implicitly (a reference is mapped like what it refers to: tofrom for
// the explicit one; the implicit scalar is firstprivate).
#include "check.h"

static void add(int &acc, int k) {
#pragma omp target map(tofrom : acc)
  acc += k;
}

int main() {
  int total = 1;
  add(total, 41);
  CHECK_EQ(total, 42);
  return check_finish();
}
