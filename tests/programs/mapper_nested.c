/* mapper_nested.c - a default mapper for a struct whose members have their
 * own default mapper (issue 13, item 6). clang's expansion of the outer
 * mapper calls the inner mappers, and the components come back in the
 * order clang's mapper functions push them.
 * expect: the kernel reads and writes both members' arrays through the
 * nested mappers.
 */
#include <stdlib.h>
#include "check.h"

#define N 16

struct vec {
  int n;
  double *d;
};
#pragma omp declare mapper(struct vec v) map(v, v.d[0 : v.n])

struct pair {
  struct vec a;
  struct vec b;
  int scale;
};
#pragma omp declare mapper(struct pair p) map(p.a, p.b, p.scale)

int main(void) {
  struct pair p;
  p.a.n = p.b.n = N;
  p.a.d = malloc(N * sizeof(double));
  p.b.d = malloc(N * sizeof(double));
  p.scale = 3;
  for (int i = 0; i < N; i++) {
    p.a.d[i] = i;
    p.b.d[i] = 0;
  }
#pragma omp target map(tofrom : p)
  for (int i = 0; i < p.a.n; i++)
    p.b.d[i] = p.scale * p.a.d[i];
  for (int i = 0; i < N; i++)
    CHECK(p.b.d[i] == 3.0 * i);
  free(p.a.d);
  free(p.b.d);
  return check_finish();
}
