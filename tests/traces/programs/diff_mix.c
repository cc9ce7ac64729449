// Entries that clang 13-19 and 22 emit differently, for `simtarget-maps diff`
// (tests/traces/diff/): a struct through a declare mapper, members of a
// struct (an array member), a pointer section inside a data region and
// used implicitly by a region in it, and an update of that section.
#include <stdio.h>
#include <stdlib.h>
struct Vec { int n; double *data; };
struct Grid { int nx; float w[4]; long tail; };
#pragma omp declare mapper(struct Vec v) map(v, v.data[0:v.n])
int main(void) {
  struct Vec v = {16, malloc(16 * sizeof(double))};
  struct Grid g = {4, {1, 2, 3, 4}, 9};
  double *p = malloc(8 * sizeof(double));
  for (int i = 0; i < 16; i++) v.data[i] = i;
  for (int i = 0; i < 8; i++) p[i] = 1;
#pragma omp target map(tofrom : v)
  for (int i = 0; i < v.n; i++) v.data[i] *= 2;
#pragma omp target data map(to : p[0:8])
  {
#pragma omp target map(tofrom : g.nx, g.w)
    { g.nx += 1; g.w[1] += g.w[2]; p[0] = g.w[1]; }
#pragma omp target update from(p[0:8])
  }
  int ok = v.data[15] == 30 && g.nx == 5 && g.w[1] == 5 && p[0] == 5 && g.tail == 9;
  free(v.data);
  free(p);
  puts(ok ? "PASS" : "FAIL");
  return !ok;
}
