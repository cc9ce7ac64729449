/* 15-bugs-that-run/broken_shallow_struct.c - a struct mapped without the
 * array its pointer member points to.
 * info: 0
 * run: simtarget-check
 * golden: no
 * expect-exit: 1
 * expect: ^\[1\] host-address: `v`
 * `map(to : v)` copies the struct: its `x` is still the host address of
 * the array, and the kernel follows it. LLVM's CPU runtime runs kernels in
 * the host process, where that address holds the array, so the program
 * prints the right sum there; on a GPU it is an illegal address. The fix:
 * map(to : v, v.x[0:v.n]). */
#include <stdio.h>
#include <stdlib.h>

struct vec {
  int n;
  double *x;
};

int main(void) {
  struct vec v = {1000, malloc(1000 * sizeof(double))};
  for (int i = 0; i < v.n; i++)
    v.x[i] = 1;
  double sum = 0;
#pragma omp target map(to : v) map(tofrom : sum)
  for (int i = 0; i < v.n; i++)
    sum += v.x[i];
  printf("sum = %g (1000)\n", sum);
  free(v.x);
  return sum != 1000;
}
