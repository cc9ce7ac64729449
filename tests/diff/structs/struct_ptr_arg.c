/* struct_ptr_arg.c - a pointer to a struct: map(sp[0:1]) and the member
 * pointer's data sp->v[0:n]. */
#include <stdlib.h>
#include "check.h"

struct vec { int n; double *v; };

static void twice(struct vec *sp) {
#pragma omp target map(to : sp[0:1]) map(tofrom : sp->v[0:sp->n])
  for (int i = 0; i < sp->n; i++) sp->v[i] *= 2;
}

int main(void) {
  struct vec x;
  x.n = 33;
  x.v = malloc(x.n * sizeof *x.v);
  for (int i = 0; i < x.n; i++) x.v[i] = i;
  twice(&x);
  for (int i = 0; i < x.n; i++) CHECK(x.v[i] == 2.0 * i);
  free(x.v);
  return check_finish();
}
