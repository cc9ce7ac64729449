// capture_scalar_value.cpp - a [=] lambda capturing scalars only: a
// LITERAL capture, nothing to attach.
#include "check.h"

int main() {
  int k = 5, res[8] = {};
  auto f = [=](int i) { return i * k + 1; };
#pragma omp target map(from : res)
  for (int i = 0; i < 8; i++) res[i] = f(i);
  for (int i = 0; i < 8; i++) CHECK_EQ(res[i], 5 * i + 1);
  return check_finish();
}
