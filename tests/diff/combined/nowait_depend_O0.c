/* nowait_depend_O0.c - two target nowait regions ordered by depend, then
 * taskwait.
 * cflags: -O0 */
#include "check.h"

int main(void) {
  int a[100], b[100];
  for (int i = 0; i < 100; i++) a[i] = i;
#pragma omp target map(tofrom : a) nowait depend(out : a)
  for (int i = 0; i < 100; i++) a[i] += 1;
#pragma omp target map(to : a) map(from : b) nowait depend(in : a)
  for (int i = 0; i < 100; i++) b[i] = 2 * a[i];
#pragma omp taskwait
  for (int i = 0; i < 100; i++) CHECK_EQ(b[i], 2 * (i + 1));
  return check_finish();
}
