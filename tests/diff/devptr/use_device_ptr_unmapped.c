/* use_device_ptr_unmapped.c - use_device_ptr of a pointer whose target is not
 * mapped: OpenMP 5.1 says it stays the host pointer (LLVM: unchanged). */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int *p = malloc(8 * sizeof *p);
  int *seen = NULL;
#pragma omp target data use_device_ptr(p)
  seen = p;
  CHECK(seen == p);
  free(p);
  return check_finish();
}
