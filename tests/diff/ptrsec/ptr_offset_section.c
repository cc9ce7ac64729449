/* ptr_offset_section.c - p[lo:len] of a heap pointer, lo > 0. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  double *p = calloc(100, sizeof *p);
  int lo = 37, len = 9;
#pragma omp target map(from : p[lo:len])
  for (int i = lo; i < lo + len; i++) p[i] = i * 0.5;
  for (int i = 0; i < 100; i++)
    CHECK(p[i] == ((i >= lo && i < lo + len) ? i * 0.5 : 0.0));
  free(p);
  return check_finish();
}
