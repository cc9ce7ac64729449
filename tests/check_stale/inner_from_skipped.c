// An inner `map(from:)` inside an enclosing `target data map(tofrom:)`
// copies nothing; the host then works on its stale copy, and the copy back
// at the enclosing end overwrites that work.
// stale-expect: from-skipped a[0:512] 1
#include <stdio.h>

#define N 512

int main(void) {
  int a[N];
  for (int i = 0; i < N; i++)
    a[i] = 0;
#pragma omp target data map(tofrom: a[0:N])
  {
#pragma omp target map(from: a[0:N])
    for (int i = 0; i < N; i++)
      a[i] = 2 * i;
    for (int i = 0; i < N; i++) /* meant to add 1 to the kernel's values */
      a[i] += 1;
  }
  printf("a[10] = %d\n", a[10]);
  return 0;
}
