/* section_2d.c - a 2-D array section a[1:2][0:8] (contiguous rows). */
#include "check.h"

int main(void) {
  int a[4][8];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) a[i][j] = i * 8 + j;
#pragma omp target map(tofrom : a[1:2][0:8])
  for (int i = 1; i < 3; i++)
    for (int j = 0; j < 8; j++) a[i][j] = -a[i][j];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) CHECK_EQ(a[i][j], (i == 1 || i == 2) ? -(i * 8 + j) : i * 8 + j);
  return check_finish();
}
