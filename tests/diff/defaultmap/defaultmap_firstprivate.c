/* defaultmap_firstprivate.c - defaultmap(firstprivate:aggregate): an array
 * is copied in and not back (OpenMP 5.0).
 * versions: 13 14 15 16 19 22
 * cflags: -fopenmp-version=50 */
#include "check.h"

int main(void) {
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int sum = 0;
#pragma omp target defaultmap(firstprivate : aggregate) map(tofrom : sum)
  {
    for (int i = 0; i < 8; i++) { a[i] *= 10; sum += a[i]; }
  }
  CHECK_EQ(sum, 360);
  CHECK_EQ(a[0], 1);
  return check_finish();
}
