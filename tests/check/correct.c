/* Correct: a global pointer mapped with its whole section, a teams
 * reduction, target data around two regions. No check may report it.
 * check-finding: none
 * check-stdout: ^sum = 499500 PASS$ */
#include <stdio.h>
#include <stdlib.h>

double *g;

int main(void) {
  int n = 1000;
  g = malloc(n * sizeof *g);
  for (int i = 0; i < n; i++)
    g[i] = i;
  double sum = 0;
#pragma omp target data map(tofrom : g[0:n])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
      g[i] = g[i] * 2;
#pragma omp target teams distribute parallel for reduction(+ : sum)
    for (int i = 0; i < n; i++)
      sum += g[i] / 2;
  }
  printf("sum = %g %s\n", sum, sum == 499500 && g[10] == 20 ? "PASS" : "FAIL");
  free(g);
  return sum != 499500;
}
