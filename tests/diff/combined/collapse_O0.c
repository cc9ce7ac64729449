/* collapse_O0.c - collapse(2) over a 2-D array section with a firstprivate
 * scalar and a private temporary.
 * cflags: -O0 */
#include "check.h"

int main(void) {
  static float m[64][64];
  float k = 0.5f, t;
#pragma omp target teams distribute parallel for collapse(2) private(t) map(from : m)
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      t = (float)(i - j);
      m[i][j] = t * k;
    }
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) CHECK(m[i][j] == (float)(i - j) * 0.5f);
  return check_finish();
}
