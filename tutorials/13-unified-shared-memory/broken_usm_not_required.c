/* 13-unified-shared-memory/broken_usm_not_required.c - relying on shared
 * memory without saying so.
 * info: 0x29
 * expect-exit: 1
 * expect: not device memory|host address
 * The same unmapped malloc'd pointer as in program.c, without
 * `#pragma omp requires unified_shared_memory`: the device is a separate
 * memory again, and the host address means nothing there (lesson 05's
 * forgotten map). Code that needs shared memory must say so. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 8;
  double *v = malloc(n * sizeof *v);
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target
  for (int i = 0; i < n; i++) v[i] *= 2;
  printf("v[7] = %g (14)\n", v[7]);
  int ok = v[7] == 14;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  return !ok;
}
