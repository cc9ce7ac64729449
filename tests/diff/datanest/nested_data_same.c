/* nested_data_same.c - the same array in nested target data regions: only
 * the outermost end copies back. */
#include "check.h"

int main(void) {
  int a[10] = {0};
#pragma omp target data map(tofrom : a)
  {
#pragma omp target data map(tofrom : a)
    {
#pragma omp target
      a[0] = 1;
    }
    CHECK_EQ(a[0], 0);
  }
  CHECK_EQ(a[0], 1);
  return check_finish();
}
