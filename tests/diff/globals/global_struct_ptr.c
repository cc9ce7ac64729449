/* global_struct_ptr.c - a global struct whose member pointer's pointee is
 * mapped with the struct (gs.data[0:n]). */
#include <stdlib.h>
#include "check.h"

struct vec { int n; int *data; };
struct vec gs;

int main(void) {
  gs.n = 40;
  gs.data = malloc(gs.n * sizeof *gs.data);
  for (int i = 0; i < gs.n; i++) gs.data[i] = i;
#pragma omp target map(to : gs) map(tofrom : gs.data[0:gs.n])
  for (int i = 0; i < gs.n; i++) gs.data[i] *= 3;
  for (int i = 0; i < gs.n; i++) CHECK_EQ(gs.data[i], 3 * i);
  free(gs.data);
  return check_finish();
}
