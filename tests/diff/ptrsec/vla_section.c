/* vla_section.c - a variable-length array, whole and as a section. */
#include "check.h"

int main(int argc, char **argv) {
  (void)argv;
  int n = 50 + argc;
  long v[n];
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target map(tofrom : v)
  for (int i = 0; i < n; i++) v[i] += 100;
#pragma omp target map(tofrom : v[5:10])
  for (int i = 5; i < 15; i++) v[i] *= 2;
  for (int i = 0; i < n; i++) CHECK_EQ(v[i], (i >= 5 && i < 15) ? 2 * (i + 100) : i + 100);
  return check_finish();
}
