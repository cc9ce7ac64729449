/* delete_forces.c - exit data map(delete:) removes a heap section whatever
 * its reference count (three enter data here); a later kernel maps it
 * afresh and sees the host values. */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 16;
  long *v = malloc(n * sizeof *v);
  for (int i = 0; i < n; i++) v[i] = i;
  for (int k = 0; k < 3; k++) {
#pragma omp target enter data map(to : v[0:n])
  }
#pragma omp target exit data map(delete : v[0:n])
  CHECK(!omp_target_is_present(v, omp_get_default_device()));
  long first = -1;
#pragma omp target map(to : v[0:n]) map(from : first)
  first = v[0] + v[n - 1];
  CHECK_EQ(first, 15);
  free(v);
  return check_finish();
}
