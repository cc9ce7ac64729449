// capture_ref_threads.cpp - [&] lambdas with per-thread captures, offloaded
// from four host threads at once (item 3).
#include "check.h"

int main() {
  int results[4] = {};
#pragma omp parallel num_threads(4)
  {
#pragma omp for
    for (int t = 0; t < 4; t++) {
      int local[16];
      for (int i = 0; i < 16; i++) local[i] = t;
      int acc = 0;
      auto add = [&](int i) { acc += local[i]; };
#pragma omp target map(to : local) map(tofrom : acc)
      for (int i = 0; i < 16; i++) add(i);
      results[t] = acc;
    }
  }
  for (int t = 0; t < 4; t++) CHECK_EQ(results[t], 16 * t);
  return check_finish();
}
