// expect-stdout: ^s = 45$
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double *x = malloc(10 * sizeof *x);
  for (int i = 0; i < 10; i++)
    x[i] = i;
  double s = 0;
#pragma omp target map(to: x[0:10]) map(tofrom: s)
  for (int i = 0; i < 10; i++)
    s += x[i];
  printf("s = %g\n", s);
  free(x);
  return 0;
}
