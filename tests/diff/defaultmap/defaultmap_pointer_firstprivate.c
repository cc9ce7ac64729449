/* defaultmap_pointer_firstprivate.c - defaultmap(firstprivate:pointer): the
 * pointer keeps its host value, only used for arithmetic and comparison.
 * cflags: -fopenmp-version=50 */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"

int main(void) {
  int *p = malloc(4 * sizeof *p);
  uintptr_t seen = 0;
#pragma omp target defaultmap(firstprivate : pointer) map(from : seen)
  seen = (uintptr_t)(p + 1);
  CHECK(seen == (uintptr_t)(p + 1));
  free(p);
  return check_finish();
}
