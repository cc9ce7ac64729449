/* private_array.c - private scratch array per thread on the device. */
#include "check.h"

int main(void) {
  int out[64];
  int tmp[4];
#pragma omp target teams distribute parallel for private(tmp) map(from : out)
  for (int i = 0; i < 64; i++) {
    for (int k = 0; k < 4; k++) tmp[k] = i + k;
    out[i] = tmp[0] + tmp[3];
  }
  for (int i = 0; i < 64; i++) CHECK_EQ(out[i], 2 * i + 3);
  return check_finish();
}
