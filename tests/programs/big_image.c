/* big_image.c - a device image larger than the plugin's 1 MiB bounce area
 * (a 2.4 MB declare-target table), which reaches the device in several
 * pieces; a small one goes with the load command itself.
 * expect: the kernel reads both ends and the middle of the table as
 * initialised, on the device. */
#include <omp.h>
#include "check.h"

#define ENTRIES 600000

#pragma omp declare target
static const int table[ENTRIES] = {[0] = 3, [ENTRIES / 2] = 5, [ENTRIES - 1] = 7};
#pragma omp end declare target

int main(void) {
  int sum = 0, on_host = -1;
#pragma omp target map(from : sum, on_host)
  {
    sum = table[0] + table[ENTRIES / 2] + table[ENTRIES - 1] + table[1];
    on_host = omp_is_initial_device();
  }
  CHECK_EQ(sum, 15);
  CHECK_EQ(on_host, 0);
  return check_finish();
}
