/* 15-bugs-that-run/program.c - a correct program, run by simtarget-check.
 * info: 0
 * run: simtarget-check
 * golden: no
 * expect: ^sum = 499500 \(499500\)$
 * expect: ^simtarget-check: .*program: no finding$
 * simtarget-check runs the program once per check that applies, passes its
 * output through once and says "no finding". The broken_*.c programs of
 * this lesson each run to the end on LLVM's runtime, some with a right-
 * looking result; simtarget-check names the bug in each. */
#include <stdio.h>
#include <stdlib.h>

double *data; /* a global pointer, as many programs keep their arrays */

int main(void) {
  int n = 1000;
  data = malloc(n * sizeof *data);
  for (int i = 0; i < n; i++)
    data[i] = i;
  double sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : data[0:n])
  for (int i = 0; i < n; i++)
    sum += data[i];
  printf("sum = %g (499500)\n", sum);
  printf("%s\n", sum == 499500 ? "PASS" : "FAIL");
  free(data);
  return sum != 499500;
}
