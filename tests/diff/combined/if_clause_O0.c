/* if_clause_O0.c - if(target: 0) on a combined construct runs on the host;
 * if(1) on the device.
 * cflags: -O0 */
#include <omp.h>
#include "check.h"

int main(void) {
  int on_host = -1, on_dev = -1, n = 0;
#pragma omp target teams num_teams(1) if (target : n) map(from : on_host)
  on_host = omp_is_initial_device();
#pragma omp target teams num_teams(1) if (target : n + 1) map(from : on_dev)
  on_dev = omp_is_initial_device();
  CHECK_EQ(on_host, 1);
  CHECK_EQ(on_dev, 0);
  return check_finish();
}
