/* partly_present_data_end.c - an inner target data lists a smaller section
 * and a larger one ends partly present (issue item 8). */
#include "check.h"

int main(void) {
  int a[40];
  for (int i = 0; i < 40; i++) a[i] = i;
#pragma omp target data map(tofrom : a[0:20])
  {
#pragma omp target map(tofrom : a[0:20])
    for (int i = 0; i < 20; i++) a[i] += 1;
  }
  for (int i = 0; i < 20; i++) CHECK_EQ(a[i], i + 1);
  return check_finish();
}
