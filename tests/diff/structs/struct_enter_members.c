/* struct_enter_members.c - enter data of a struct, then of its member
 * pointer's data; a kernel uses both; exit data in reverse order. */
#include <stdlib.h>
#include "check.h"

struct field { int n; float *val; };

int main(void) {
  struct field f;
  f.n = 128;
  f.val = malloc(f.n * sizeof *f.val);
  for (int i = 0; i < f.n; i++) f.val[i] = 1.0f;
#pragma omp target enter data map(to : f)
#pragma omp target enter data map(to : f.val[0:f.n])
#pragma omp target
  for (int i = 0; i < f.n; i++) f.val[i] += (float)i;
#pragma omp target exit data map(from : f.val[0:f.n])
#pragma omp target exit data map(release : f)
  for (int i = 0; i < f.n; i++) CHECK(f.val[i] == 1.0f + i);
  free(f.val);
  return check_finish();
}
