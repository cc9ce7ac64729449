/* declare_target.c - declare target globals and functions, and target update
 * to/from of a global.
 * expect: the device has its own copy of each global; it changes only
 * through target update (or a map of the global). */
#include <omp.h>
#include "check.h"

#pragma omp declare target
int offset = 5;
double table[16];
static int scale(int x) { return 3 * x + offset; }
int device_flag(void) { return omp_is_initial_device(); }
#pragma omp end declare target

int main(void) {
  int r = 0, on_host = -1;
#pragma omp target map(from : r, on_host)
  {
    r = scale(10);
    on_host = device_flag();
  }
  CHECK_EQ(r, 35);
  CHECK_EQ(on_host, 0);

  offset = 1000; /* host copy only */
#pragma omp target map(from : r)
  r = scale(10);
  CHECK_EQ(r, 35); /* the device still has 5 */

#pragma omp target update to(offset)
#pragma omp target map(from : r)
  r = scale(10);
  CHECK_EQ(r, 1030);

  /* Written on the device, visible on the host only after update from. */
#pragma omp target
  {
    for (int i = 0; i < 16; i++) table[i] = i * 0.25;
    offset = -7;
  }
  CHECK(table[15] == 0.0);
  CHECK_EQ(offset, 1000);
#pragma omp target update from(table, offset)
  CHECK(table[15] == 3.75);
  CHECK_EQ(offset, -7);
  return check_finish();
}
