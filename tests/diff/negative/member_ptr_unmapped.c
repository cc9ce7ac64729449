/* member_ptr_unmapped.c - the struct is mapped but not what its member
 * pointer points to.
 * simtarget-only
 * cflags: -g
 * expect-exit: 1
 * expect-stderr: s */
#include <stdlib.h>
#include "check.h"

struct holder { int n; int *items; };

int main(void) {
  struct holder s = {16, malloc((1 << 20) * sizeof(int))};
  s.items[0] = 4;
#pragma omp target map(tofrom : s)
  s.items[0] *= 2;
  printf("ran with an unmapped member pointer\n");
  free(s.items);
  return 3;
}
