// The host reads a result inside `target data`, whose count keeps the
// inner region's `from` from copying anything: it prints its own stale
// zeros. Under memcheck with SIMTARGET_CHECK=stale those bytes are
// undefined from the skipped `from` on, so memcheck reports the read.
// memcheck-expect: read_inside_data.c:20
#include <stdio.h>

static double total[4];

int main(void) {
  double v[64];
  for (int i = 0; i < 64; i++)
    v[i] = 1.0;
#pragma omp target data map(tofrom: total) map(to: v)
  {
#pragma omp target map(from: total)
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < 16; i++)
        total[k] += v[16 * k + i];
    if (total[0] != 16.0)
      printf("total[0] = %.1f inside target data\n", total[0]);
  }
  printf("total[0] = %.1f after\n", total[0]);
  return 0;
}
