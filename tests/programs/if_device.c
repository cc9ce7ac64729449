/* if_device.c - target if(0) runs on the host; if(1) and an explicit
 * device(n) clause run on device n, and know it.
 * (SIMTARGET_CHECK=stale reports the map(to) write kept on the device on
 * purpose)
 * stale-expect: released-unread * 1
 * env: SIMDEVICE_NUM_DEVICES=2
 * simtarget-only
 * (LLVM's CPU plugin runs kernels on the host's libomp, whose
 * omp_get_device_num() answers the host's number: it fails this check.)
 * expect: if(0) sees omp_is_initial_device()==1 and touches host memory
 * directly; device(last device) offloads and omp_get_device_num() there is
 * the last device's number; device(0) answers 0. */
#include <omp.h>
#include "check.h"

int main(int argc, char **argv) {
  (void)argv;
  int on_host = -1, value = 1;
  int ndev = omp_get_num_devices();
  CHECK(ndev >= 1);

#pragma omp target if (0) map(from : on_host) map(tofrom : value)
  {
    on_host = omp_is_initial_device();
    value = 2;
  }
  CHECK_EQ(on_host, 1);
  CHECK_EQ(value, 2);

  int use_device = argc > 0; /* true, but not a constant */
  int last = ndev - 1, device_num = -1;
#pragma omp target if (use_device) device(last) map(from : on_host, device_num)
  {
    on_host = omp_is_initial_device();
    device_num = omp_get_device_num();
  }
  CHECK_EQ(on_host, 0);
  CHECK_EQ(device_num, last);

  /* A map(to) value changed on the device stays unchanged on the host. */
  int shadow = 5;
#pragma omp target device(0) map(to : shadow) map(from : on_host, device_num)
  {
    shadow = 6;
    on_host = omp_is_initial_device();
    device_num = omp_get_device_num();
  }
  CHECK_EQ(shadow, 5);
  CHECK_EQ(on_host, 0);
  CHECK_EQ(device_num, 0);
  return check_finish();
}
