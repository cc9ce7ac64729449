/* declare_target_enter.c - declare target enter(...) (OpenMP 5.2 spelling).
 * versions: 16 19 22
 * cflags: -fopenmp-version=52 */
#include "check.h"

int counters[4];
#pragma omp declare target enter(counters)

int main(void) {
#pragma omp target
  for (int i = 0; i < 4; i++) counters[i] = 10 + i;
#pragma omp target update from(counters)
  for (int i = 0; i < 4; i++) CHECK_EQ(counters[i], 10 + i);
  return check_finish();
}
