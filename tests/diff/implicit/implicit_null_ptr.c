/* implicit_null_ptr.c - a NULL pointer used implicitly stays NULL. */
#include <stddef.h>
#include "check.h"

int main(void) {
  int *p = NULL;
  int was_null = 0;
#pragma omp target map(from : was_null)
  was_null = (p == NULL);
  CHECK_EQ(was_null, 1);
  return check_finish();
}
