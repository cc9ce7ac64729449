/* ptr_and_section.c - a pointer and its section both listed: map(p, p[:n]),
 * map(tofrom: p) map(to: p[0:n]) (issue 13, item 2). The kernel must see the
 * device copy of the section through p (LLVM runs these).
 * versions: 19 22
 * expect: the kernel reads the section through p and writes through it.
 * clang 13-16 pass the pointer and its section as two unrelated entries
 * (no PTR_AND_OBJ), so the kernel's p holds the host address; LLVM 13-16
 * crash on this program too (a compiler bug, not simulated).
 */
#include <stdlib.h>
#include "check.h"

#define N 32

static int sum_both(int *p, int n) {
  int sum = 0;
#pragma omp target map(p, p[:n]) map(tofrom : sum)
  for (int i = 0; i < n; i++)
    sum += p[i];
  return sum;
}

int main(void) {
  int *p = malloc(N * sizeof *p);
  for (int i = 0; i < N; i++)
    p[i] = i;
  CHECK_EQ(sum_both(p, N), N * (N - 1) / 2);
  int *q = p;
#pragma omp target map(tofrom : q) map(tofrom : q[0 : N])
  for (int i = 0; i < N; i++)
    q[i] = 3 * i;
  CHECK(q == p);
  for (int i = 0; i < N; i++)
    CHECK_EQ(p[i], 3 * i);
  free(p);
  return check_finish();
}
