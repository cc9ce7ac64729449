/* A global pointer's section one element short, read by every thread of
 * a league: the last element lies past the device copy.
 * check-finding: past-end-of-mapping g[0:n - 1] global_short.c:17
 * check-stdout: ^start$ */
#include <stdio.h>
#include <stdlib.h>

double *g;

int main(void) {
  int n = 1000;
  g = malloc(n * sizeof *g);
  for (int i = 0; i < n; i++)
    g[i] = i;
  double sum = 0;
  printf("start\n");
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : g[0:n - 1])
  for (int i = 0; i < n; i++)
    sum += g[i];
  printf("sum = %g\n", sum);
  free(g);
  return 0;
}
