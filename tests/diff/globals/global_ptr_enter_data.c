/* global_ptr_enter_data.c - enter data of a global pointer's section, then
 * a kernel that names the section again, then exit data (item 1).
 */
#include <stdlib.h>
#include "check.h"

double *gvec;
static int gn = 300;

static void scale(double f) {
#pragma omp target map(gvec[0:gn])
  for (int i = 0; i < gn; i++) gvec[i] *= f;
}

int main(void) {
  gvec = malloc(gn * sizeof *gvec);
  for (int i = 0; i < gn; i++) gvec[i] = i;
#pragma omp target enter data map(to : gvec[0:gn])
  scale(2.0);
  scale(0.5);
  scale(3.0);
#pragma omp target exit data map(from : gvec[0:gn])
  for (int i = 0; i < gn; i++) CHECK(gvec[i] == 3.0 * i);
  free(gvec);
  return check_finish();
}
