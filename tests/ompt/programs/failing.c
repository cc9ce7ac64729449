/* env: SIMTARGET_KEEP_GOING=1
 * ompt: simtarget-only (LLVM ends the program at the failure)
 * A construct that fails (a section that extends a mapped one) under
 * SIMTARGET_KEEP_GOING=1: its target_emi begin and end are raised, with
 * no kernel between them; the next construct is raised normally. */
#include <stdio.h>

#define N 16
static int a[2 * N];

int main(void) {
#pragma omp target enter data map(to : a[0:N])
#pragma omp target map(tofrom : a[0:2 * N])
  for (int i = 0; i < 2 * N; i++)
    a[i] = 1;
#pragma omp target exit data map(release : a[0:N])
  puts("PASS");
  return 0;
}
