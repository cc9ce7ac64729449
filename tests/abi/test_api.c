/*
 * test_api.c - the device memory routines (omp_target_alloc, _memcpy,
 * _memcpy_rect, _memset, _associate_ptr, ...) and the device-number routines
 * on two real simdevice devices: results, and the refusal of bad arguments
 * with an error instead of a crash.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "omptarget.h"

void *llvm_omp_target_alloc_device(size_t size, int device_num);
void llvm_omp_target_free_device(void *ptr, int device_num);
void *llvm_omp_target_alloc_host(size_t size, int device_num);
void *llvm_omp_target_alloc_shared(size_t size, int device_num);

static int host;

static int setup(void **state) {
  (void)state;
  setenv("SIMDEVICE_NUM_DEVICES", "2", 1);
  host = omp_get_initial_device();
  return omp_get_num_devices() == 2 ? 0 : -1;
}

static void test_device_numbers(void **state) {
  (void)state;
  assert_int_equal(host, 2);
  assert_int_equal(omp_is_initial_device(), 1);
  assert_int_equal(omp_get_device_num(), host);
  int before = omp_get_default_device();
  omp_set_default_device(1);
  assert_int_equal(omp_get_default_device(), 1);
  omp_set_default_device(before);
}

static void test_alloc_copy_round_trip(void **state) {
  (void)state;
  enum { N = 1000 };
  int src[N], back[N];
  for (int i = 0; i < N; i++)
    src[i] = i * 7, back[i] = -1;
  int *d0 = omp_target_alloc(sizeof src, 0);
  int *d1 = omp_target_alloc(sizeof src, 1);
  assert_non_null(d0);
  assert_non_null(d1);
  assert_ptr_not_equal(d0, src);
  /* host -> device 0 -> device 1 -> host, with offsets */
  assert_int_equal(omp_target_memcpy(d0, src, sizeof src, 0, 0, 0, host), 0);
  assert_int_equal(omp_target_memcpy(d1, d0, sizeof src, 0, 0, 1, 0), 0);
  assert_int_equal(omp_target_memcpy(back, d1, sizeof src - 8, 8, 8, host, 1),
                   0);
  assert_int_equal(back[0], -1);
  assert_int_equal(back[1], -1);
  for (int i = 2; i < N; i++)
    assert_int_equal(back[i], i * 7);
  /* host -> host */
  int h2[4] = {0};
  assert_int_equal(omp_target_memcpy(h2, src, sizeof h2, 0, 4, host, host), 0);
  assert_int_equal(h2[0], 7);
  omp_target_free(d0, 0);
  omp_target_free(d1, 1);
  /* the initial device allocates host memory */
  int *h = omp_target_alloc(16, host);
  assert_non_null(h);
  h[3] = 5;
  omp_target_free(h, host);
  /* zero bytes: NULL; freeing NULL: nothing */
  assert_null(omp_target_alloc(0, 0));
  omp_target_free(NULL, 0);
}

static void test_bad_arguments(void **state) {
  (void)state;
  char buf[8];
  assert_null(omp_target_alloc(16, 7));
  assert_null(omp_target_alloc(16, -5));
  assert_int_equal(omp_target_memcpy(NULL, buf, 1, 0, 0, host, host), EINVAL);
  assert_int_equal(omp_target_memcpy(buf, buf, 1, 0, 0, 9, host), EINVAL);
  omp_target_free(buf, 9); /* refused with a message, not freed */
  /* simdevice's host and shared memory: one address for host and device */
  char *both = llvm_omp_target_alloc_shared(64, 0);
  assert_non_null(both);
  memset(both, 5, 64);
  char back = 0;
  assert_int_equal(omp_target_memcpy(&back, both, 1, 0, 63, host, 0), 0);
  assert_int_equal(back, 5);
  assert_int_equal(omp_target_is_accessible(both, 64, 0), 1);
  assert_int_equal(omp_target_is_accessible(buf, 1, 0), 0);
  llvm_omp_target_free_shared(both, 0);
  assert_null(llvm_omp_target_alloc_host(64, 7));
}

static void test_memcpy_rect(void **state) {
  (void)state;
  /* copy the 2x3 block at (1,2) of a 4x5 host array into (0,1) of a 3x4
   * device array, then the whole device array back */
  int a[4][5], b[3][4];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      a[i][j] = 10 * i + j;
  int *d = omp_target_alloc(sizeof b, 0);
  assert_non_null(d);
  assert_ptr_equal(omp_target_memset(d, 0, sizeof b, 0), d);
  size_t volume[2] = {2, 3}, dst_off[2] = {0, 1}, src_off[2] = {1, 2};
  size_t dst_dims[2] = {3, 4}, src_dims[2] = {4, 5};
  assert_int_equal(omp_target_memcpy_rect(d, a, sizeof(int), 2, volume,
                                          dst_off, src_off, dst_dims,
                                          src_dims, 0, host),
                   0);
  assert_int_equal(omp_target_memcpy(b, d, sizeof b, 0, 0, host, 0), 0);
  int expect[3][4] = {{0, 12, 13, 14}, {0, 22, 23, 24}, {0, 0, 0, 0}};
  assert_memory_equal(b, expect, sizeof b);
  /* three dimensions, device to host */
  size_t v3[3] = {1, 2, 2}, z3[3] = {0, 0, 0}, dims3[3] = {2, 3, 4};
  int c[2][3][4];
  memset(c, 0x7f, sizeof c);
  int *d3 = omp_target_alloc(sizeof c, 0);
  int fill[2][3][4];
  for (int i = 0; i < 24; i++)
    ((int *)fill)[i] = i;
  assert_int_equal(omp_target_memcpy(d3, fill, sizeof fill, 0, 0, 0, host), 0);
  assert_int_equal(omp_target_memcpy_rect(c, d3, sizeof(int), 3, v3, z3, z3,
                                          dims3, dims3, host, 0),
                   0);
  assert_int_equal(c[0][0][0], 0);
  assert_int_equal(c[0][0][1], 1);
  assert_int_equal(c[0][1][1], 5);
  assert_int_equal(c[0][0][2], 0x7f7f7f7f); /* outside the volume */
  /* both NULL: the number of dimensions supported */
  assert_int_equal(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL,
                                          NULL, NULL, 0, 0),
                   INT_MAX);
  /* out-of-range volume, bad dimensions, NULL arrays */
  size_t too_big[2] = {4, 4};
  assert_int_equal(omp_target_memcpy_rect(d, a, sizeof(int), 2, too_big,
                                          dst_off, src_off, dst_dims,
                                          src_dims, 0, host),
                   EINVAL);
  assert_int_equal(omp_target_memcpy_rect(d, a, sizeof(int), 0, volume,
                                          dst_off, src_off, dst_dims,
                                          src_dims, 0, host),
                   EINVAL);
  assert_int_equal(omp_target_memcpy_rect(d, a, sizeof(int), 2, NULL,
                                          dst_off, src_off, dst_dims,
                                          src_dims, 0, host),
                   EINVAL);
  omp_target_free(d, 0);
  omp_target_free(d3, 0);
}

static void test_memset(void **state) {
  (void)state;
  enum { N = 3 << 20 }; /* more than one bounce chunk */
  unsigned char *d = omp_target_alloc(N, 1);
  assert_non_null(d);
  assert_ptr_equal(omp_target_memset(d, 0xab, N, 1), d);
  unsigned char *h = malloc(N);
  assert_int_equal(omp_target_memcpy(h, d, N, 0, 0, host, 1), 0);
  assert_int_equal(h[0], 0xab);
  assert_int_equal(h[N / 2], 0xab);
  assert_int_equal(h[N - 1], 0xab);
  /* on the host it is memset */
  assert_ptr_equal(omp_target_memset(h, 1, 4, host), h);
  assert_int_equal(h[3], 1);
  free(h);
  omp_target_free(d, 1);
}

static void test_associate(void **state) {
  (void)state;
  double hostbuf[32];
  double *d = omp_target_alloc(sizeof hostbuf * 2, 0);
  assert_non_null(d);
  assert_false(omp_target_is_present(hostbuf, 0));
  assert_null(omp_get_mapped_ptr(hostbuf, 0));
  assert_int_equal(omp_target_associate_ptr(hostbuf, d, sizeof hostbuf, 8, 0),
                   0);
  assert_true(omp_target_is_present(&hostbuf[5], 0));
  assert_ptr_equal(omp_get_mapped_ptr(&hostbuf[2], 0), (char *)d + 8 + 16);
  /* the same association again is fine; another device address is not */
  assert_int_equal(omp_target_associate_ptr(hostbuf, d, sizeof hostbuf, 8, 0),
                   0);
  assert_int_equal(omp_target_associate_ptr(hostbuf, d, sizeof hostbuf, 0, 0),
                   EINVAL);
  /* only the start of an association can be disassociated */
  assert_int_equal(omp_target_disassociate_ptr(&hostbuf[1], 0), EINVAL);
  assert_int_equal(omp_target_disassociate_ptr(hostbuf, 0), 0);
  assert_false(omp_target_is_present(hostbuf, 0));
  assert_int_equal(omp_target_disassociate_ptr(hostbuf, 0), EINVAL);
  /* bad arguments */
  assert_int_equal(omp_target_associate_ptr(NULL, d, 8, 0, 0), EINVAL);
  assert_int_equal(omp_target_associate_ptr(hostbuf, NULL, 8, 0, 0), EINVAL);
  assert_int_equal(omp_target_associate_ptr(hostbuf, d, 0, 0, 0), EINVAL);
  /* the initial device: everything is present, pointers map to themselves */
  assert_true(omp_target_is_present(hostbuf, host));
  assert_ptr_equal(omp_get_mapped_ptr(hostbuf, host), hostbuf);
  /* the llvm_ names libomp looks up */
  void *p = llvm_omp_target_alloc_device(64, 1);
  assert_non_null(p);
  llvm_omp_target_free_device(p, 1);
  omp_target_free(d, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_numbers),
      cmocka_unit_test(test_alloc_copy_round_trip),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_memcpy_rect),
      cmocka_unit_test(test_memset),
      cmocka_unit_test(test_associate),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
