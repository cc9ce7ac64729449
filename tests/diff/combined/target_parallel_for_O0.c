/* target_parallel_for_O0.c - target parallel for with a schedule clause.
 * cflags: -O0 */
#include "check.h"

int main(void) {
  int a[500];
#pragma omp target parallel for schedule(static, 7) map(from : a)
  for (int i = 0; i < 500; i++) a[i] = i ^ 5;
  for (int i = 0; i < 500; i++) CHECK_EQ(a[i], i ^ 5);
  return check_finish();
}
