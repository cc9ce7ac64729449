/* 08-declare-target/indirect.c - declare target indirect: calling a host
 * function pointer inside a target region.
 * info: 0x01
 * cflags: -fopenmp-version=51
 * A function pointer holds a host address. `indirect` asks the compiler
 * and runtime to translate it to the device version of the function when
 * the region calls through it. */
#include <stdio.h>

int twice(int x) { return 2 * x; }
int square(int x) { return x * x; }
#pragma omp declare target to(twice, square) indirect

int main(void) {
  int (*op)(int) = square;
  int r = 0;
#pragma omp target map(from : r)
  r = op(7);
  printf("op(7) = %d (49)\n", r);
  printf("%s\n", r == 49 ? "PASS" : "FAIL");
  return r != 49;
}
