/* global_2d.c - a global 2-D array, a block of rows mapped. */
#include "check.h"

float gm[16][16];

int main(void) {
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) gm[i][j] = (float)(i + j);
#pragma omp target teams distribute parallel for collapse(2) map(tofrom : gm[4:8][0:16])
  for (int i = 4; i < 12; i++)
    for (int j = 0; j < 16; j++) gm[i][j] = -gm[i][j];
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) CHECK(gm[i][j] == ((i >= 4 && i < 12) ? -(float)(i + j) : (float)(i + j)));
  return check_finish();
}
