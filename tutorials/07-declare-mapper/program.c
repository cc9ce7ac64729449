/* 07-declare-mapper/program.c - declare mapper: say once how a type maps.
 * info: 0x29
 * The mapper tells every map(... : v) of a struct vec to map the struct
 * and its n elements; each construct then needs only map(tofrom : v). */
#include <stdio.h>
#include <stdlib.h>

struct vec {
  int n;
  double *data;
};
#pragma omp declare mapper(struct vec v) map(v, v.data[0:v.n])

int main(void) {
  struct vec v = {4, malloc(4 * sizeof(double))};
  if (!v.data) return 2;
  for (int i = 0; i < v.n; i++) v.data[i] = i;
#pragma omp target map(tofrom : v)
  for (int i = 0; i < v.n; i++) v.data[i] *= 3;
  printf("v.data[3] = %g (9)\n", v.data[3]);
  int ok = v.data[3] == 9;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v.data);
  return !ok;
}
