/* defaultmap_to_aggregate.c - defaultmap(to:aggregate): written on the
 * device, the host copy is unchanged.
 * cflags: -fopenmp-version=50 */
#include "check.h"

struct s { int v[4]; };

int main(void) {
  struct s x = {{1, 2, 3, 4}};
  int out = 0;
#pragma omp target defaultmap(to : aggregate) map(from : out)
  {
    x.v[0] = 100;
    out = x.v[0] + x.v[3];
  }
  CHECK_EQ(out, 104);
  CHECK_EQ(x.v[0], 1);
  return check_finish();
}
