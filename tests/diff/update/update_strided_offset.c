/* update_strided_offset.c - a strided update that starts at an offset and
 * whose stride is larger than its length: c[4:2:5] = c[4], c[9].
 * cflags: -fopenmp-version=50
 */
#include "check.h"

int main(void) {
  double c[16] = {0};
#pragma omp target data map(to : c)
  {
#pragma omp target
    for (int i = 0; i < 16; i++) c[i] = i;
#pragma omp target update from(c[4:2:5])
  }
  for (int i = 0; i < 16; i++) CHECK(c[i] == ((i == 4 || i == 9) ? (double)i : 0.0));
  return check_finish();
}
