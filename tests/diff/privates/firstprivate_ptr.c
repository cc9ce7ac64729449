/* firstprivate_ptr.c - firstprivate(p) of a pointer: the device gets the
 * host value as is (OpenMP 5.0), usable for address arithmetic only. */
#include <stdint.h>
#include "check.h"

int main(void) {
  int a[4];
  int *p = &a[1];
  intptr_t diff = 0;
#pragma omp target firstprivate(p) map(from : diff)
  diff = (intptr_t)p - (intptr_t)0;
  CHECK(diff == (intptr_t)&a[1]);
  return check_finish();
}
