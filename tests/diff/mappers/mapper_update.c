/* mapper_update.c - target update to/from through the default mapper:
 * the buffer behind the member pointer moves too. */
#include <stdlib.h>
#include "check.h"

struct vec { int n; int *d; };
#pragma omp declare mapper(struct vec v) map(v, v.d[0:v.n])

int main(void) {
  struct vec v = {30, calloc(30, sizeof(int))};
#pragma omp target enter data map(to : v)
  for (int i = 0; i < v.n; i++) v.d[i] = i;
#pragma omp target update to(v)
#pragma omp target
  for (int i = 0; i < v.n; i++) v.d[i] *= 2;
#pragma omp target update from(v)
  for (int i = 0; i < v.n; i++) CHECK_EQ(v.d[i], 2 * i);
#pragma omp target exit data map(delete : v)
  free(v.d);
  return check_finish();
}
