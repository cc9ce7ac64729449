/* no_always_present.c - without always, a present array is not copied:
 * the host change is not seen by the device and the device change not
 * seen by the host until the outer region ends. */
#include "check.h"

int main(void) {
  int a[4] = {1, 1, 1, 1};
  int seen = 0;
#pragma omp target data map(tofrom : a)
  {
    a[0] = 100;
#pragma omp target map(tofrom : a) map(from : seen)
    {
      seen = a[0];
      a[1] = 7;
    }
    CHECK_EQ(a[1], 1);
  }
  CHECK_EQ(seen, 1);
  CHECK_EQ(a[0], 1);
  CHECK_EQ(a[1], 7);
  return check_finish();
}
