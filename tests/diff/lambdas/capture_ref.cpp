// capture_ref.cpp - a [&] lambda called in a target region (issue item 3):
// the captured references must point to the device copies.
#include "check.h"

int main() {
  int a[64], sum = 0;
  for (int i = 0; i < 64; i++) a[i] = i;
  auto add = [&](int i) { sum += a[i]; };
#pragma omp target map(to : a) map(tofrom : sum)
  for (int i = 0; i < 64; i++) add(i);
  CHECK_EQ(sum, 63 * 64 / 2);
  return check_finish();
}
