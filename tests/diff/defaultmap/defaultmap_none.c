/* defaultmap_none.c - defaultmap(none): every variable is listed.
 * cflags: -fopenmp-version=50 */
#include "check.h"

int main(void) {
  int a[10], n = 10, k = 3;
  for (int i = 0; i < 10; i++) a[i] = i;
#pragma omp target defaultmap(none) map(tofrom : a) firstprivate(n, k)
  for (int i = 0; i < n; i++) a[i] *= k;
  for (int i = 0; i < 10; i++) CHECK_EQ(a[i], 3 * i);
  return check_finish();
}
