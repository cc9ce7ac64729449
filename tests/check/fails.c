/* Correct offload, but the program itself ends with status 3: no finding,
 * and simtarget-check says the program failed (its exit status 3).
 * check-finding: none
 * check-exit: 3
 * check-stdout: ^x = 42$ */
#include <stdio.h>

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 42;
  printf("x = %d\n", x);
  return 3;
}
