/* update_present_modifier.c - target update from(present: a) with a present.
 * versions: 16 19 22
 * cflags: -fopenmp-version=51 */
#include "check.h"

int main(void) {
  int a[6] = {0};
#pragma omp target enter data map(to : a)
#pragma omp target
  a[5] = 55;
#pragma omp target update from(present : a)
  CHECK_EQ(a[5], 55);
#pragma omp target exit data map(delete : a)
  return check_finish();
}
