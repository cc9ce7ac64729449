/* 05-pointers-sections/broken_pointer_table.c - a table of host pointers.
 * info: 0x29
 * expect-exit: 1
 * expect: not device memory|outside|host memory
 * Mapping the table copies its entries, and they are host addresses: every
 * row must be mapped and the device table must hold the device addresses,
 * which no map clause on `rows` does. Flatten the rows into one block
 * (program.c), or map each row and build the table on the device. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  enum { ROWS = 4, COLS = 3 };
  double *rows[ROWS];
  for (int r = 0; r < ROWS; r++) {
    rows[r] = calloc(COLS, sizeof(double));
    if (!rows[r]) return 2;
  }
#pragma omp target map(to : rows)
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) rows[r][c] = r + c;
  printf("rows[3][2] = %g (5)\n", rows[3][2]);
  int ok = rows[3][2] == 5;
  printf("%s\n", ok ? "PASS" : "FAIL");
  for (int r = 0; r < ROWS; r++) free(rows[r]);
  return !ok;
}
