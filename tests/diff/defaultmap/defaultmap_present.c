/* defaultmap_present.c - defaultmap(present:aggregate) with the array
 * already present (OpenMP 5.1).
 * versions: 16 19 22
 * cflags: -fopenmp-version=51 */
#include "check.h"

int main(void) {
  int a[12];
  for (int i = 0; i < 12; i++) a[i] = i;
#pragma omp target enter data map(to : a)
#pragma omp target defaultmap(present : aggregate)
  for (int i = 0; i < 12; i++) a[i] += 1;
#pragma omp target exit data map(from : a)
  for (int i = 0; i < 12; i++) CHECK_EQ(a[i], i + 1);
  return check_finish();
}
