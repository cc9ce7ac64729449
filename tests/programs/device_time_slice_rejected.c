/* device_time_slice_rejected.c - a SIMDEVICE_SLICE_US the kernel would not
 * take (below 100 us) is refused with a message naming the variable, and
 * the device runs with the default, 100 us.
 * simtarget-only
 * env: SIMDEVICE_SLICE_US=50
 * expect-stderr: SIMDEVICE_SLICE_US="50" is not 0 or a number of microseconds from 100 to 100000; using 100
 * expect: the warning, and a device thread with a 100 us slice (when the
 * kernel reports slices: Linux 6.12 and later, not under qemu-user). */
#include <stdio.h>
#include "check.h"
#include "slice.h"

int main(void) {
  long long host = thread_slice_ns(), device = -2;
#pragma omp target map(from : device)
  device = thread_slice_ns();
  CHECK(device != -2);
  if (host > 0 && device > 0)
    CHECK_EQ(device, 100000);
  else
    printf("no slices reported (host %lld, device %lld): not checked\n", host,
           device);
  return check_finish();
}
