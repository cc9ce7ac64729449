/* named_mapper_update.c - target update from with a named mapper.
 * versions: 16 19 22
 * cflags: -fopenmp-version=51 */
#include <stdlib.h>
#include "check.h"

struct vec { int n; int *d; };
#pragma omp declare mapper(deep : struct vec v) map(v, v.d[0:v.n])

int main(void) {
  struct vec v = {12, calloc(12, sizeof(int))};
#pragma omp target enter data map(mapper(deep), to : v)
#pragma omp target map(mapper(deep), alloc : v)
  for (int i = 0; i < v.n; i++) v.d[i] = 5 * i;
#pragma omp target update from(mapper(deep) : v)
  for (int i = 0; i < v.n; i++) CHECK_EQ(v.d[i], 5 * i);
#pragma omp target exit data map(mapper(deep), delete : v)
  free(v.d);
  return check_finish();
}
