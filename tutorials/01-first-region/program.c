/* 01-first-region/program.c - the first target region: what runs where.
 * info: 0x01
 * The host asks how many devices there are, then runs one region on the
 * device. Inside it, omp_is_initial_device() is 0: the code runs in
 * simdevice's device process, not in this program. `from` brings the
 * answer back. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  printf("host: %d device(s), default device %d\n", omp_get_num_devices(),
         omp_get_default_device());
  int on_host = 1;
#pragma omp target map(from : on_host)
  {
    on_host = omp_is_initial_device();
  }
  printf("host: the region ran on %s\n", on_host ? "the host" : "the device");
  printf("%s\n", on_host ? "FAIL" : "PASS");
  return on_host;
}
