/* two_member_ptrs.c - two member pointers of one struct, both sections,
 * and the member the loop bound reads (s.n is outside the struct part the
 * two sections map, so it must be listed). */
#include <stdlib.h>
#include "check.h"

struct pair { int n; int *in; int *out; };

int main(void) {
  struct pair s;
  s.n = 50;
  s.in = malloc(s.n * sizeof *s.in);
  s.out = calloc(s.n, sizeof *s.out);
  for (int i = 0; i < s.n; i++) s.in[i] = i;
#pragma omp target map(to : s.n, s.in[0:s.n]) map(from : s.out[0:s.n])
  for (int i = 0; i < s.n; i++) s.out[i] = s.in[i] * s.in[i];
  for (int i = 0; i < s.n; i++) CHECK_EQ(s.out[i], i * i);
  free(s.in);
  free(s.out);
  return check_finish();
}
