/* 14-reading-diagnostics/broken_present.c - map(present : ...) of data that
 * is not on the device.
 * info: 0x00
 * expect-exit: 1
 * expect: map\(present\) of an absent object: vals
 * `present` says "this must already be mapped"; it is not (the target data
 * that should have mapped it is missing), so the construct fails. */
#include <stdio.h>

int main(void) {
  int vals[4] = {1, 2, 3, 4};
#pragma omp target map(present, tofrom : vals)
  vals[0] = 0;
  printf("vals[0] = %d\n", vals[0]);
  return 0;
}
