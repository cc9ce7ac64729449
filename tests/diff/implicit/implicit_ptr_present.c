/* implicit_ptr_present.c - a pointer used without a map: its pointee was
 * mapped by enter data, the zero-length implicit map finds it. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  int n = 32;
  int *p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = i;
#pragma omp target enter data map(to : p[0:n])
#pragma omp target
  for (int i = 0; i < n; i++) p[i] += 50;
#pragma omp target exit data map(from : p[0:n])
  for (int i = 0; i < n; i++) CHECK_EQ(p[i], i + 50);
  free(p);
  return check_finish();
}
