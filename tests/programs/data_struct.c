/* data_struct.c - target data / target update / enter and exit data, and a
 * struct whose pointer member is mapped with its pointee.
 * expect: values move exactly when the map types say they do; a map(to)
 * object changed on the device stays unchanged on the host. */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

struct grid {
  int n;
  double *cells;
  int stamp;
};

int main(void) {
  const int n = 32;
  int on_host = -1;

  /* struct + pointee in one construct (MEMBER_OF / PTR_AND_OBJ). */
  struct grid g = {n, malloc(n * sizeof(double)), 1};
  if (!g.cells) return 2;
  double *const host_cells = g.cells;
  for (int i = 0; i < n; i++) g.cells[i] = i;
#pragma omp target map(tofrom : g, g.cells[0:n]) map(from : on_host)
  {
    on_host = omp_is_initial_device();
    for (int i = 0; i < g.n; i++) g.cells[i] = g.cells[i] * 2 + g.stamp;
    g.stamp = 99;
  }
  CHECK_EQ(on_host, 0);
  CHECK_EQ(g.stamp, 99);
  for (int i = 0; i < n; i++) CHECK(g.cells[i] == 2.0 * i + 1);
  /* The pointer member must come back as the host address, not as the
   * device address the device copy of g held. */
  CHECK(g.cells == host_cells);

  /* target data keeps x and y on the device across two regions. */
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  if (!x || !y) return 2;
  for (int i = 0; i < n; i++) { x[i] = i; y[i] = -1; }
#pragma omp target data map(to : x[0:n]) map(from : y[0:n])
  {
#pragma omp target
    for (int i = 0; i < n; i++) { y[i] = x[i] + 0.5; x[i] = -100; }
    /* x was map(to): the device's -100 must not reach the host. */
    CHECK(x[3] == 3.0);
    /* y is only copied back at the end of target data ... */
    CHECK(y[3] == -1.0);
#pragma omp target update from(y[0:n])
    /* ... or when asked. */
    CHECK(y[3] == 3.5);
    for (int i = 0; i < n; i++) x[i] = 10 * i;
#pragma omp target update to(x[0:n])
#pragma omp target
    for (int i = 0; i < n; i++) y[i] = x[i] + 1;
  }
  for (int i = 0; i < n; i++) CHECK(y[i] == 10.0 * i + 1);

  /* Unstructured lifetime: enter data, two regions, exit data. */
  double *z = malloc(n * sizeof(double));
  if (!z) return 2;
  for (int i = 0; i < n; i++) z[i] = i;
  int dev = omp_get_default_device();
  CHECK(!omp_target_is_present(z, dev));
#pragma omp target enter data map(to : z[0:n])
  CHECK(omp_target_is_present(z, dev));
#pragma omp target
  for (int i = 0; i < n; i++) z[i] *= 3;
#pragma omp target
  for (int i = 0; i < n; i++) z[i] += 1;
  CHECK(z[2] == 2.0); /* host copy untouched until exit data */
#pragma omp target exit data map(from : z[0:n])
  CHECK(!omp_target_is_present(z, dev));
  for (int i = 0; i < n; i++) CHECK(z[i] == 3.0 * i + 1);

  /* Reference counts: entered twice, released once, still present. */
#pragma omp target enter data map(alloc : x[0:n])
#pragma omp target enter data map(alloc : x[0:n])
#pragma omp target exit data map(release : x[0:n])
  CHECK(omp_target_is_present(x, dev));
#pragma omp target exit data map(delete : x[0:n])
  CHECK(!omp_target_is_present(x, dev));

  free(g.cells);
  free(x);
  free(y);
  free(z);
  return check_finish();
}
