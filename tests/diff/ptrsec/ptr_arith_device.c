/* ptr_arith_device.c - the kernel walks the mapped section with its own
 * pointer arithmetic and stores a pointer into the section. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 256;
  int *p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = i;
  long sum = 0;
#pragma omp target map(to : p[0:n]) map(tofrom : sum)
  {
    int *end = p + n;
    for (int *q = p; q < end; q += 2) sum += *q;
  }
  CHECK_EQ(sum, 127 * 128);
  free(p);
  return check_finish();
}
