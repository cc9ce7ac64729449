/* 01-first-region/broken_lost_result.c - the answer never comes back.
 * info: 0x01
 * expect-exit: 1
 * expect: ^host: the region ran on the host$
 * `on_host` has no map clause. A scalar used in a target region is
 * firstprivate by default: the device gets a copy of the value, changes the
 * copy, and the copy is dropped at the end. The host still sees 1. No
 * runtime can tell: the program is legal, only wrong. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int on_host = 1;
#pragma omp target
  {
    on_host = omp_is_initial_device();
  }
  printf("host: the region ran on %s\n", on_host ? "the host" : "the device");
  printf("%s\n", on_host ? "FAIL" : "PASS");
  return on_host;
}
