/* vg_from_read.c - a kernel accumulates into a map(from:) array it never
 * initialised (`from` was written where `tofrom` was meant): the sums go
 * back to the host built on bytes nothing wrote.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=memcheck
 * vg-expect: the 64 bytes of `hist\[0:16\]` \(map\(from\) at .*vg_from_read.c:2[0-9]
 * vg-finding: "rule":"never-written-copied-back","variable":"hist\[0:16\]"
 * expect: simtarget names the array whose bytes went back to the host without a value */
#include <stdio.h>
#include <string.h>
#include "check.h"

int hist[16];
int data[1000];

int main(void) {
  for (int i = 0; i < 1000; i++)
    data[i] = (i * 7) % 16;
  memset(hist, 0, sizeof hist);
#pragma omp target map(to : data) map(from : hist[0:16])
  for (int i = 0; i < 1000; i++)
    hist[data[i]]++;
  printf("hist[0] %d\nPASS\n", hist[0]);
  return 0;
}
