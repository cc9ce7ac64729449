/* map_temporaries.c - a loop over heap temporaries, each mapped by one
 * target region and freed after it: malloc hands the same address back, so
 * each region maps the same host object anew (simdevice gives it its last
 * device block again). Sizes change between rounds, within a page and
 * across pages, and the map types change with them.
 * (SIMTARGET_CHECK=stale reports each map(to) round's device-only writes)
 * stale-expect: released-unread * 13
 * expect: every region sees this round's values (map to/tofrom), its
 * writes come back (tofrom/from), the last element of each size is
 * writable, and nothing of an earlier round leaks into a later one
 * through a copy.
 */
#include <stdlib.h>
#include "check.h"

int main(void) {
  static const long sizes[] = {512, 512, 511, 8, 4096, 4095, 513, 512, 20000};
  for (int round = 0; round < 40; round++) {
    long n = sizes[round % (int)(sizeof sizes / sizeof sizes[0])];
    double *a = malloc(n * sizeof *a);
    for (long i = 0; i < n; i++)
      a[i] = round + i;
    double sum = 0;
    if (round % 3 == 0) {
#pragma omp target map(tofrom : a[0:n]) map(tofrom : sum)
      for (long i = 0; i < n; i++) {
        sum += a[i];
        a[i] = -a[i];
      }
      CHECK(a[0] == -(double)round && a[n - 1] == -(double)(round + n - 1));
    } else if (round % 3 == 1) {
#pragma omp target map(to : a[0:n]) map(tofrom : sum)
      for (long i = 0; i < n; i++) {
        sum += a[i];
        a[i] = 0; /* device copy only */
      }
      CHECK(a[n - 1] == (double)(round + n - 1));
    } else {
      /* map(from): the device copy starts undefined; the kernel writes it
       * all, then sums what it wrote. */
#pragma omp target map(from : a[0:n]) map(tofrom : sum)
      {
        for (long i = 0; i < n; i++)
          a[i] = 2.0 * (round + i);
        for (long i = 0; i < n; i++)
          sum += a[i] / 2.0;
      }
      CHECK(a[n - 1] == 2.0 * (round + n - 1));
    }
    /* sum of round + i over i < n */
    double want = (double)round * n + (double)n * (n - 1) / 2;
    if (sum != want) {
      printf("round %d (n %ld): sum %.1f, expected %.1f\n", round, n, sum, want);
      check_failures++;
    }
    free(a);
  }
  return check_finish();
}
