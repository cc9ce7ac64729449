/* A declare mapper that maps a struct's array member, and a teams region
 * with num_teams(4): each allocation and copy the mapper causes is an
 * event of its construct, and the kernel requests 4 teams. */
#include <stdio.h>
#include <stdlib.h>

struct vec {
  int n;
  double *data;
};
#pragma omp declare mapper(struct vec v) map(v, v.data[0:v.n])

int main(void) {
  struct vec v = {100, malloc(100 * sizeof(double))};
  for (int i = 0; i < v.n; i++)
    v.data[i] = i;
#pragma omp target teams distribute parallel for num_teams(4) map(tofrom : v)
  for (int i = 0; i < v.n; i++)
    v.data[i] *= 2;
  int bad = 0;
  for (int i = 0; i < v.n; i++)
    bad += v.data[i] != 2.0 * i;
  free(v.data);
  puts(bad ? "FAIL" : "PASS");
  return bad != 0;
}
