/* heap_section.c - a malloc'd array mapped tofrom with a section. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 1000;
  int *p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = i;
#pragma omp target teams distribute parallel for map(tofrom : p[0:n])
  for (int i = 0; i < n; i++) p[i] *= 2;
  for (int i = 0; i < n; i++) CHECK_EQ(p[i], 2 * i);
  free(p);
  return check_finish();
}
