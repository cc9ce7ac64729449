/* target_api.c - the device memory routines: omp_target_alloc/free,
 * omp_target_memcpy, omp_target_memcpy_rect, omp_target_associate_ptr,
 * omp_target_disassociate_ptr and omp_target_is_present.
 * expect: copies land where asked, rectangles copy only their window, and
 * an associated host buffer is treated as present (no copy on map). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define N 64
#define ROWS 6
#define COLS 8

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  CHECK(omp_get_num_devices() >= 1);
  CHECK(dev != host);

  double h[N];
  for (int i = 0; i < N; i++) h[i] = i;
  double *d = omp_target_alloc(N * sizeof(double), dev);
  CHECK(d != NULL);
  if (!d) return check_finish();
  CHECK(!omp_target_is_present(h, dev));
  CHECK_EQ(omp_target_memcpy(d, h, N * sizeof(double), 0, 0, dev, host), 0);

  int on_host = -1;
#pragma omp target is_device_ptr(d) map(from : on_host)
  {
    on_host = omp_is_initial_device();
    for (int i = 0; i < N; i++) d[i] = d[i] * 2 + 1;
  }
  CHECK_EQ(on_host, 0);
  CHECK(h[3] == 3.0); /* nothing copied back by itself */
  /* Copy with offsets: device elements 10..19 into host 0..9. */
  CHECK_EQ(omp_target_memcpy(h, d, 10 * sizeof(double), 0,
                             10 * sizeof(double), host, dev), 0);
  for (int i = 0; i < 10; i++) CHECK(h[i] == 2.0 * (i + 10) + 1);
  CHECK(h[10] == 10.0);

  /* Device-to-device copy. */
  double *d2 = omp_target_alloc(N * sizeof(double), dev);
  CHECK(d2 != NULL);
  if (d2) {
    CHECK_EQ(omp_target_memcpy(d2, d, N * sizeof(double), 0, 0, dev, dev), 0);
    double back[N];
    CHECK_EQ(omp_target_memcpy(back, d2, sizeof back, 0, 0, host, dev), 0);
    CHECK(back[N - 1] == 2.0 * (N - 1) + 1);
    omp_target_free(d2, dev);
  }

  /* Rectangles: copy the 2x3 window at (row 1, col 2) of a ROWSxCOLS host
   * matrix to (row 3, col 4) of a zeroed device matrix, then read all of it
   * back: exactly those 6 cells are set. */
  int m[ROWS][COLS], got[ROWS][COLS];
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) m[r][c] = 100 * r + c;
  int *dm = omp_target_alloc(sizeof m, dev);
  CHECK(dm != NULL);
  if (dm) {
    int zero[ROWS][COLS];
    memset(zero, 0, sizeof zero);
    CHECK_EQ(omp_target_memcpy(dm, zero, sizeof zero, 0, 0, dev, host), 0);
    size_t volume[2] = {2, 3}, dims[2] = {ROWS, COLS};
    size_t dst_off[2] = {3, 4}, src_off[2] = {1, 2};
    CHECK_EQ(omp_target_memcpy_rect(dm, m, sizeof(int), 2, volume, dst_off,
                                    src_off, dims, dims, dev, host), 0);
    CHECK_EQ(omp_target_memcpy(got, dm, sizeof got, 0, 0, host, dev), 0);
    int set = 0;
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++) set += got[r][c] != 0;
    CHECK_EQ(set, 6);
    CHECK_EQ(got[3][4], 102);
    CHECK_EQ(got[4][6], 204);
    /* Querying the limits: both NULL returns the number of dimensions. */
    CHECK(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL,
                                 NULL, dev, host) > 0);
    omp_target_free(dm, dev);
  }

  /* Associate h with d: mapping h is then a no-op (already present). */
  for (int i = 0; i < N; i++) h[i] = -1;
  CHECK_EQ(omp_target_associate_ptr(h, d, N * sizeof(double), 0, dev), 0);
  CHECK(omp_target_is_present(h, dev));
#pragma omp target map(tofrom : h[0:N])
  for (int i = 0; i < N; i++) h[i] += 100;
  CHECK(h[0] == -1.0); /* present: not copied back */
  CHECK_EQ(omp_target_disassociate_ptr(h, dev), 0);
  CHECK(!omp_target_is_present(h, dev));
  CHECK_EQ(omp_target_memcpy(h, d, N * sizeof(double), 0, 0, host, dev), 0);
  CHECK(h[0] == 101.0);
  CHECK(h[5] == 111.0);

  omp_target_free(d, dev);
  omp_target_free(NULL, dev); /* allowed, does nothing */
  return check_finish();
}
