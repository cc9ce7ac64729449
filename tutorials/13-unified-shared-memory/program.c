/* 13-unified-shared-memory/program.c - requires unified_shared_memory.
 * info: 0x29
 * With this `requires`, host and device share one address space: a malloc'd
 * pointer works in a target region without any map, and a mapped variable
 * is not copied: the device works on the host object itself. So a write
 * on the device is seen by the host at once, even with map(to : ...). */
#include <stdio.h>
#include <stdlib.h>

#pragma omp requires unified_shared_memory

int main(void) {
  int n = 8;
  double *v = malloc(n * sizeof *v);
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target /* no map for v's data: the host pointer is fine */
  for (int i = 0; i < n; i++) v[i] *= 2;
  int x[1] = {1};
#pragma omp target map(to : x) /* `to` only, yet the host sees the write */
  x[0] = 5;
  printf("v[7] = %g (14), x[0] = %d (5: one object, no copies)\n", v[7], x[0]);
  int ok = v[7] == 14 && x[0] == 5;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  return !ok;
}
