/* 07-declare-mapper/broken_mapper_short.c - a mapper that maps too little.
 * info: 0x29
 * expect-exit: 1
 * expect: past the end
 * The mapper maps only v.data[0:v.n - 1]; the loop touches all n
 * elements, one past the end of the device copy. A mapper is one place to
 * get wrong for every construct that maps the type. */
#include <stdio.h>
#include <stdlib.h>

struct vec {
  int n;
  double *data;
};
#pragma omp declare mapper(struct vec v) map(v, v.data[0:v.n - 1])

int main(void) {
  struct vec v = {512, malloc(512 * sizeof(double))};
  if (!v.data) return 2;
  for (int i = 0; i < v.n; i++) v.data[i] = i;
#pragma omp target map(tofrom : v)
  for (int i = 0; i < v.n; i++) v.data[i] *= 3;
  printf("v.data[511] = %g (1533)\n", v.data[511]);
  int ok = v.data[511] == 1533;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v.data);
  return !ok;
}
