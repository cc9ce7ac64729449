/* global_ptr_section.c - a file-scope pointer mapped with a section
 * (issue 13 item 1: clang 13-19 emit PTR_AND_OBJ|TARGET_PARAM).
 */
#include <stdlib.h>
#include "check.h"

int *gp;

int main(void) {
  int n = 100;
  gp = malloc(n * sizeof *gp);
  for (int i = 0; i < n; i++) gp[i] = i;
#pragma omp target map(tofrom : gp[0:n])
  for (int i = 0; i < n; i++) gp[i] += 7;
  for (int i = 0; i < n; i++) CHECK_EQ(gp[i], i + 7);
  free(gp);
  return check_finish();
}
