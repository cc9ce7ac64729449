/* mapper_array_of_structs.c - the default mapper applied to each element of
 * an array section of structs. */
#include <stdlib.h>
#include "check.h"

struct buf { int n; int *d; };
#pragma omp declare mapper(struct buf b) map(b, b.d[0:b.n])

int main(void) {
  struct buf bs[4];
  for (int k = 0; k < 4; k++) {
    bs[k].n = 10 + k;
    bs[k].d = malloc(bs[k].n * sizeof(int));
    for (int i = 0; i < bs[k].n; i++) bs[k].d[i] = k;
  }
#pragma omp target map(tofrom : bs[0:4])
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < bs[k].n; i++) bs[k].d[i] += i;
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < bs[k].n; i++) CHECK_EQ(bs[k].d[i], k + i);
    free(bs[k].d);
  }
  return check_finish();
}
