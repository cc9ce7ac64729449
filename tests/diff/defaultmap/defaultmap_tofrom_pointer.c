/* defaultmap_tofrom_pointer.c - defaultmap(tofrom:pointer) maps the pointer
 * variable itself: a device write to it comes back (the pointee is not
 * used).
 * cflags: -fopenmp-version=50 */
#include "check.h"

int main(void) {
  static int slots[4];
  int *p = &slots[0];
#pragma omp target defaultmap(tofrom : pointer)
  p = p + 2;
  CHECK(p == &slots[2]);
  return check_finish();
}
