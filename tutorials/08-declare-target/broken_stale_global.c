/* 08-declare-target/broken_stale_global.c - a device global that the host
 * changed, without target update.
 * info: 0x29
 * expect-exit: 1
 * expect: ^count above 14: 4 \(want 2\)$
 * The device has its own `threshold`, still 10: the host's assignment does
 * not reach it. No runtime can tell; the trace shows no copy of
 * `threshold` at all. The fix: #pragma omp target update to(threshold). */
#include <stdio.h>

#pragma omp declare target
int threshold = 10;
#pragma omp end declare target

int main(void) {
  int v[8] = {1, 5, 9, 12, 15, 20, 3, 11};
  int count = 0;
  threshold = 14;
#pragma omp target map(to : v) map(tofrom : count)
  for (int i = 0; i < 8; i++) count += v[i] > threshold;
  printf("count above 14: %d (want 2)\n", count);
  printf("%s\n", count == 2 ? "PASS" : "FAIL");
  return count != 2;
}
