/* 15-bugs-that-run/broken_short_section.c - the section one element short.
 * info: 0
 * run: simtarget-check
 * golden: no
 * expect-exit: 1
 * expect: ^\[1\] past-end-of-mapping: `data\[0:n - 1\]`
 * expect: ^    construct: broken_short_section.c:22:1 \(in main\)$
 * `data[0:n - 1]` maps n - 1 elements (a section's second number is a
 * length), and the loop reads n. On LLVM's runtime the last read lands in
 * whatever follows the device copy on the heap. The fix: data[0:n]. */
#include <stdio.h>
#include <stdlib.h>

double *data;

int main(void) {
  int n = 1000;
  data = malloc(n * sizeof *data);
  for (int i = 0; i < n; i++)
    data[i] = i;
  double sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : data[0:n - 1])
  for (int i = 0; i < n; i++)
    sum += data[i];
  printf("sum = %g (499500)\n", sum);
  free(data);
  return sum != 499500;
}
