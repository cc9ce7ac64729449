/* Runs longer than the suite's --timeout: simtarget-check ends it and
 * exits 2 (could not check).
 * check-finding: none
 * check-exit: 2
 * check-args: --timeout 1 */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  sleep(20);
  printf("x = %d\n", x);
  return 0;
}
