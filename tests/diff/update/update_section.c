/* update_section.c - target update of a contiguous section only. */
#include "check.h"

int main(void) {
  int a[50];
  for (int i = 0; i < 50; i++) a[i] = i;
#pragma omp target data map(to : a)
  {
#pragma omp target
    for (int i = 0; i < 50; i++) a[i] = -1;
#pragma omp target update from(a[10:5])
  }
  for (int i = 0; i < 50; i++) CHECK_EQ(a[i], (i >= 10 && i < 15) ? -1 : i);
  return check_finish();
}
