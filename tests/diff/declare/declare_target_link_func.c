/* declare_target_link_func.c - a link variable used by a declare target
 * function, mapped around the call with target data. */
#include "check.h"

double coeffs[8];
#pragma omp declare target link(coeffs)

#pragma omp declare target
static double weigh(int i) { return coeffs[i % 8] * i; }
#pragma omp end declare target

int main(void) {
  for (int i = 0; i < 8; i++) coeffs[i] = 0.5 * i;
  double out[16];
#pragma omp target data map(to : coeffs)
  {
#pragma omp target map(from : out)
    for (int i = 0; i < 16; i++) out[i] = weigh(i);
  }
  for (int i = 0; i < 16; i++) CHECK(out[i] == 0.5 * (i % 8) * i);
  return check_finish();
}
