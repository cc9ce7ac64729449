/* global_array.c - a file-scope array mapped explicitly and implicitly. */
#include "check.h"

int garr[128];

int main(void) {
  for (int i = 0; i < 128; i++) garr[i] = i;
#pragma omp target map(tofrom : garr)
  for (int i = 0; i < 128; i++) garr[i] += 1;
#pragma omp target
  for (int i = 0; i < 128; i++) garr[i] *= 2;
  for (int i = 0; i < 128; i++) CHECK_EQ(garr[i], 2 * (i + 1));
  return check_finish();
}
