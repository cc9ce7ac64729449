/* default_mapper.c - a default mapper maps a struct and its buffer. */
#include <stdlib.h>
#include "check.h"

struct vec { int n; int *d; };
#pragma omp declare mapper(struct vec v) map(v, v.d[0:v.n])

int main(void) {
  struct vec v = {60, malloc(60 * sizeof(int))};
  for (int i = 0; i < v.n; i++) v.d[i] = i;
#pragma omp target map(tofrom : v)
  for (int i = 0; i < v.n; i++) v.d[i] += 1;
  for (int i = 0; i < v.n; i++) CHECK_EQ(v.d[i], i + 1);
  free(v.d);
  return check_finish();
}
