/* 14-reading-diagnostics/broken_extends.c - mapping more of an array than
 * is already mapped.
 * info: 0x00
 * expect-exit: 1
 * expect: vals
 * vals[0:4] is on the device; the region asks for vals[0:8]. OpenMP does
 * not grow a mapping: the new range only partly overlaps the present one,
 * and the runtime stops with both ranges named. */
#include <stdio.h>

int main(void) {
  int vals[8] = {0};
#pragma omp target data map(tofrom : vals[0:4])
  {
#pragma omp target map(tofrom : vals[0:8])
    for (int i = 0; i < 8; i++) vals[i] = i;
  }
  printf("vals[7] = %d\n", vals[7]);
  return 0;
}
