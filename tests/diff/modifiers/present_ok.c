/* present_ok.c - map(present, tofrom:) on data that is present.
 * cflags: -fopenmp-version=51 */
#include "check.h"

int main(void) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = i;
#pragma omp target enter data map(to : a)
#pragma omp target map(present, tofrom : a)
  for (int i = 0; i < 16; i++) a[i] += 1;
#pragma omp target exit data map(from : a)
  for (int i = 0; i < 16; i++) CHECK_EQ(a[i], i + 1);
  return check_finish();
}
