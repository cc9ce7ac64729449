/* pointer_and_section.c - the pointer and its section both listed
 * (issue 13 item 2): map(p, p[0:n]).
 */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 64;
  int *p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = i;
#pragma omp target map(tofrom : p) map(tofrom : p[0:n])
  for (int i = 0; i < n; i++) p[i] += 3;
  for (int i = 0; i < n; i++) CHECK_EQ(p[i], i + 3);
  free(p);
  return check_finish();
}
