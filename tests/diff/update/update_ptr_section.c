/* update_ptr_section.c - target update of a heap pointer's section. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 200;
  int *p = calloc(n, sizeof *p);
#pragma omp target enter data map(to : p[0:n])
#pragma omp target
  for (int i = 0; i < n; i++) p[i] = i;
#pragma omp target update from(p[100:50])
  for (int i = 0; i < n; i++) CHECK_EQ(p[i], (i >= 100 && i < 150) ? i : 0);
#pragma omp target exit data map(delete : p[0:n])
  free(p);
  return check_finish();
}
