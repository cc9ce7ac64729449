// lambda_in_kernel.cpp - a lambda defined inside the target region captures
// device variables by reference: nothing to translate on the host.
#include "check.h"

int main() {
  int out[10] = {};
#pragma omp target map(from : out)
  {
    int base = 3;
    auto put = [&](int i) { out[i] = base * i; };
    for (int i = 0; i < 10; i++) put(i);
  }
  for (int i = 0; i < 10; i++) CHECK_EQ(out[i], 3 * i);
  return check_finish();
}
