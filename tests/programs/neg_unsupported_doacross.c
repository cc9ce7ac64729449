/* neg_unsupported_doacross.c - a doacross loop (`ordered depend(sink/source)`)
 * in a target region: simtarget's device runtime does not support it, so
 * loading the image fails with a message naming the construct and the
 * entry point, never a bare "undefined symbol".
 * simtarget-only
 * expect-exit: 1
 * expect-stderr: calls `__kmpc_doacross_[a-z]+`, for `ordered depend.*\(doacross loops\): simtarget.s device runtime does not support it
 * expect: the program stops at its first target region with that message. */
#include <stdio.h>

#define N 64

int main(void) {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = 1;
#pragma omp target map(tofrom : a)
#pragma omp parallel for ordered(1)
  for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
    a[i] += a[i - 1];
#pragma omp ordered depend(source)
  }
  printf("a[N-1] = %d\n", a[N - 1]);
  return a[N - 1] == N ? 0 : 1;
}
