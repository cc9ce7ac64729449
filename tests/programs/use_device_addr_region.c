/* use_device_addr_region.c - a variable used inside a use_device_addr
 * region by a nested target region (issue 13, item 4). clang 13-16 map the
 * variable there with the device address as its base; the host process must
 * never crash on that.
 * expect: the nested region sees the device copy; the host keeps its data.
 */
#include <omp.h>
#include "check.h"

#define N 16

int main(void) {
  int buf[N];
  for (int i = 0; i < N; i++)
    buf[i] = i;
  int *seen = NULL;
#pragma omp target data map(tofrom : buf)
  {
#pragma omp target data use_device_addr(buf)
    {
      seen = &buf[0];
#pragma omp target map(tofrom : buf)
      for (int i = 0; i < N; i++)
        buf[i] += 100;
    }
  }
  CHECK(seen != NULL);
  for (int i = 0; i < N; i++)
    CHECK_EQ(buf[i], i + 100);
  return check_finish();
}
