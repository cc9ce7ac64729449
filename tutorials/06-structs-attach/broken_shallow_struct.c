/* 06-structs-attach/broken_shallow_struct.c - a struct mapped shallowly.
 * info: 0x29
 * expect-exit: 1
 * expect: not device memory|host address
 * Only the struct is mapped: s.data on the device is the host address of
 * the elements, and the kernel's first s.data[i] faults. LLVM's CPU offload
 * shares the host's memory, so there the host address works. The fix:
 * map(tofrom : s.data[0:s.n]) as well (program.c). */
#include <stdio.h>
#include <stdlib.h>

struct vec {
  int n;
  double *data;
};

int main(void) {
  struct vec s = {4, malloc(4 * sizeof(double))};
  if (!s.data) return 2;
  for (int i = 0; i < s.n; i++) s.data[i] = i;
#pragma omp target map(tofrom : s)
  for (int i = 0; i < s.n; i++) s.data[i] += 10;
  printf("s.data[3] = %g (13)\n", s.data[3]);
  int ok = s.data[3] == 13;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(s.data);
  return !ok;
}
