/* ptr_to_ptr.c - rows of a 2-D array reached through int **, each row
 * mapped by its own target data inside a loop. */
#include <stdlib.h>
#include "check.h"

int main(void) {
  enum { R = 4, C = 32 };
  int **rows = malloc(R * sizeof *rows);
  for (int r = 0; r < R; r++) {
    rows[r] = malloc(C * sizeof **rows);
    for (int c = 0; c < C; c++) rows[r][c] = r * C + c;
  }
  for (int r = 0; r < R; r++) {
    int *row = rows[r];
#pragma omp target map(tofrom : row[0:C])
    for (int c = 0; c < C; c++) row[c] += 1;
  }
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) CHECK_EQ(rows[r][c], r * C + c + 1);
  for (int r = 0; r < R; r++) free(rows[r]);
  free(rows);
  return check_finish();
}
