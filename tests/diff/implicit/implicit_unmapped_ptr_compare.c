/* implicit_unmapped_ptr_compare.c - an unmapped non-NULL pointer used
 * implicitly but never dereferenced: OpenMP 5.1 keeps its host value.
 * LLVM 13-15 do not (the check fails there): followed here is the
 * standard, so those show as failing on LLVM's runtime. */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"

int main(void) {
  int *p = malloc(sizeof *p);
  uintptr_t seen = 0;
#pragma omp target map(from : seen)
  seen = (uintptr_t)p;
  CHECK(seen == (uintptr_t)p);
  free(p);
  return check_finish();
}
