/* 04-target-update/broken_update_unmapped.c - updating what is not mapped.
 * info: 0x69
 * expect-exit: 1
 * expect: is not mapped: nothing updated
 * `target update` copies between a host object and its device copy; here
 * `vals` has no device copy (the region mapped it and unmapped it at its end),
 * so the update does nothing, silently under OpenMP's rules. The trace bit
 * 0x40 says so. With `target update from(present : vals)` the runtime would
 * stop with an error instead. The device's result was never kept: map `vals`
 * with `target data` around both, or map(tofrom) on the region. */
#include <stdio.h>

int main(void) {
  int vals[4] = {1, 2, 3, 4};
#pragma omp target map(to : vals)
  for (int i = 0; i < 4; i++) vals[i] *= 10;
#pragma omp target update from(vals)
  printf("vals[3] = %d (want 40)\n", vals[3]);
  printf("%s\n", vals[3] == 40 ? "PASS" : "FAIL");
  return vals[3] != 40;
}
