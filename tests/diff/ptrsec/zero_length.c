/* zero_length.c - a zero-length section p[0:0] of a pointer that was not
 * mapped: the kernel gets the pointer (NULL-translation rules aside) and
 * does not touch it. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int *p = malloc(16 * sizeof *p);
  int touched = 0;
#pragma omp target map(to : p[0:0]) map(from : touched)
  touched = 1;
  CHECK_EQ(touched, 1);
  free(p);
  return check_finish();
}
