/* named_mapper.c - a named mapper chosen with mapper(id). */
#include <stdlib.h>
#include "check.h"

struct vec { int n; double *d; };
#pragma omp declare mapper(full : struct vec v) map(v, v.d[0:v.n])

int main(void) {
  struct vec v = {25, malloc(25 * sizeof(double))};
  for (int i = 0; i < v.n; i++) v.d[i] = i;
#pragma omp target map(mapper(full), tofrom : v)
  for (int i = 0; i < v.n; i++) v.d[i] *= 3;
  for (int i = 0; i < v.n; i++) CHECK(v.d[i] == 3.0 * i);
  free(v.d);
  return check_finish();
}
