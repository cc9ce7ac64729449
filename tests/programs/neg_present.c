/* neg_present.c - map(present, ...) of an object that is not on the device.
 * cflags: -fopenmp-version=51
 * expect-exit: 1
 * expect-stderr: present.*(absent|not present|does not exist)
 * expect: the present modifier makes an absent object an error; under
 * OMP_TARGET_OFFLOAD=mandatory the runtime ends the program with status 1
 * and says the object was not present. Exit 3 means the region ran. */
#include <stdio.h>

int main(void) {
  double x[8] = {0};
#pragma omp target map(present, tofrom : x)
  x[0] = 1;
  printf("the region ran although x was not present: x[0]=%g\n", x[0]);
  return 3;
}
