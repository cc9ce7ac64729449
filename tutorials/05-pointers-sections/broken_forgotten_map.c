/* 05-pointers-sections/broken_forgotten_map.c - a heap pointer used on the
 * device without mapping what it points to.
 * info: 0x29
 * expect-exit: 1
 * expect: not device memory|outside|host memory
 * The region gets only the pointer value, a host address. LLVM's CPU offload
 * runs the kernel in the host process, where that address happens to work;
 * simdevice runs it in another process, so the bug shows at once. The fix:
 * map(tofrom : v[0:n]) (program.c). */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *v = malloc(n * sizeof *v);
  if (!v) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target
  for (int i = 0; i < n; i++) v[i] *= 2;
  printf("v[10] = %g\n", v[10]);
  int ok = v[10] == 20.0;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  return !ok;
}
