/* 03-target-data-refcounts/broken_read_too_early.c - the host reads a
 * result while `target data` still holds it on the device.
 * info: 0xa8
 * expect-exit: 1
 * expect: ^inside target data: sum\[0\] = 0 \(the device has 10\)$
 * The region computes sum[] on the device; its map(tofrom) only moved the
 * count 1 -> 2 -> 1, so nothing was copied back, and the host prints its
 * own stale 0. Legal OpenMP: no runtime reports it. The fix: `target update
 * from(sum)` before the host reads, or read after the target data block. */
#include <stdio.h>

int main(void) {
  int sum[1] = {0}, seen = 0;
  int v[4] = {1, 2, 3, 4};
#pragma omp target data map(tofrom : sum) map(to : v)
  {
#pragma omp target map(tofrom : sum)
    for (int i = 0; i < 4; i++) sum[0] += v[i];
    printf("inside target data: sum[0] = %d (the device has 10)\n", sum[0]);
    seen = sum[0];
  }
  printf("%s\n", seen == 10 ? "PASS" : "FAIL");
  return seen != 10;
}
