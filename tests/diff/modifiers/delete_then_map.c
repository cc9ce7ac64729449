/* delete_then_map.c - exit data map(delete:) then a later target map(to:)
 * of the same section (issue item 10). */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 64;
  int *x = malloc(n * sizeof *x);
  for (int i = 0; i < n; i++) x[i] = i;
#pragma omp target enter data map(to : x[0:n])
#pragma omp target exit data map(delete : x[0:n])
  int sum = 0;
#pragma omp target map(to : x[0:n]) map(tofrom : sum)
  for (int i = 0; i < n; i++) sum += x[i];
  CHECK_EQ(sum, 63 * 64 / 2);
  free(x);
  return check_finish();
}
