/* mapper_enter_exit.c - a mapper used by enter/exit data; the kernel in
 * between maps the struct implicitly. */
#include <stdlib.h>
#include "check.h"

struct mat { int rows, cols; float *cells; };
#pragma omp declare mapper(struct mat m) map(m, m.cells[0:m.rows * m.cols])

int main(void) {
  struct mat m = {4, 5, malloc(20 * sizeof(float))};
  for (int i = 0; i < 20; i++) m.cells[i] = (float)i;
#pragma omp target enter data map(to : m)
#pragma omp target
  for (int i = 0; i < m.rows * m.cols; i++) m.cells[i] += 100;
#pragma omp target exit data map(from : m)
  for (int i = 0; i < 20; i++) CHECK(m.cells[i] == 100.0f + i);
  free(m.cells);
  return check_finish();
}
