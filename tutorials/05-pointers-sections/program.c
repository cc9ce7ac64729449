/* 05-pointers-sections/program.c - pointers need array sections.
 * info: 0x29
 * A pointer's map must say which elements it points to: v[0:n] maps n
 * elements starting at v[0], and inside the region `v` then holds the
 * device address of that copy. A table of rows is flattened into one
 * block, so one section carries all of it. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000, rows = 4, cols = 3;
  double *v = malloc(n * sizeof *v);
  double *grid = malloc(rows * cols * sizeof *grid); /* grid[r * cols + c] */
  if (!v || !grid) return 2;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target map(tofrom : v[0:n])
  for (int i = 0; i < n; i++) v[i] *= 2;
#pragma omp target map(from : grid[0:rows * cols])
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) grid[r * cols + c] = r + c;
  printf("v[999] = %g (1998), grid[3][2] = %g (5)\n", v[999], grid[3 * cols + 2]);
  int ok = v[999] == 1998 && grid[3 * cols + 2] == 5;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(v);
  free(grid);
  return !ok;
}
