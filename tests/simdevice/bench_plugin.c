/*
 * bench_plugin.c - simdevice's own costs at the plugin interface, printed
 * (part of `make bench`, not a test: nothing asserts a time): round trip of
 * an empty kernel launch, host<->device copy bandwidth, alloc+free with
 * guard pages (and how the device process applies them: guard_mode).
 */
#include <time.h>

#include "simdev_test.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void test_measure(void **state) {
  (void)state;
  struct test_image img;
  test_image_build(&img);
  assert_int_equal(__tgt_rtl_init_device(0), OFFLOAD_SUCCESS);
  __tgt_target_table *t = __tgt_rtl_load_binary(0, &img.image);
  assert_non_null(t);
  void *k = t->EntriesBegin[E_EMPTY].addr;

  /* Empty launch: batches of 1000, median batch reported. */
  enum { BATCHES = 21, PER_BATCH = 1000 };
  double batch_us[BATCHES];
  for (int i = 0; i < 1000; i++) /* warm up */
    assert_int_equal(launch(0, k, 0, NULL), OFFLOAD_SUCCESS);
  for (int b = 0; b < BATCHES; b++) {
    double t0 = now();
    for (int i = 0; i < PER_BATCH; i++)
      assert_int_equal(launch(0, k, 0, NULL), OFFLOAD_SUCCESS);
    batch_us[b] = (now() - t0) * 1e6 / PER_BATCH;
  }
  qsort(batch_us, BATCHES, sizeof batch_us[0], by_value);
  printf("empty kernel launch round trip: median %.2f us, best %.2f us, "
         "worst %.2f us (per launch, batches of %d)\n",
         batch_us[BATCHES / 2], batch_us[0], batch_us[BATCHES - 1], PER_BATCH);

  /* Bandwidth: 64 MiB each way, 8 times. */
  size_t bytes = 64u << 20;
  char *host = malloc(bytes);
  assert_non_null(host);
  memset(host, 1, bytes);
  void *dev = __tgt_rtl_data_alloc(0, (int64_t)bytes, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(dev);
  assert_int_equal(__tgt_rtl_data_submit(0, dev, host, (int64_t)bytes),
                   OFFLOAD_SUCCESS); /* first touch of the pages */
  double t0 = now();
  for (int i = 0; i < 8; i++)
    assert_int_equal(__tgt_rtl_data_submit(0, dev, host, (int64_t)bytes),
                     OFFLOAD_SUCCESS);
  double up = 8.0 * bytes / (now() - t0) / 1e9;
  t0 = now();
  for (int i = 0; i < 8; i++)
    assert_int_equal(__tgt_rtl_data_retrieve(0, host, dev, (int64_t)bytes),
                     OFFLOAD_SUCCESS);
  double down = 8.0 * bytes / (now() - t0) / 1e9;
  printf("transfer bandwidth (64 MiB copies): host->device %.2f GB/s, "
         "device->host %.2f GB/s\n",
         up, down);
  assert_int_equal(__tgt_rtl_data_delete(0, dev), OFFLOAD_SUCCESS);
  free(host);

  enum { N = 100000 };
  void **p = malloc(N * sizeof *p);
  assert_non_null(p);
  /* 20000 live guarded objects stay under vm.max_map_count (the mprotect
   * scheme's limit). */
  enum { LIVE = 20000 };
  const struct simdev_control *ctl = control_area(0);
  assert_non_null(ctl);
  const char *mode = ctl->guard_mode == SIMDEV_GUARD_REGIONS ? "guard regions"
                     : ctl->guard_mode == SIMDEV_GUARD_MPROTECT ? "mprotect"
                                                                 : "off";
  for (int i = 0; i < LIVE; i++)
    assert_non_null(p[i] = __tgt_rtl_data_alloc(0, 64, NULL,
                                                  TARGET_ALLOC_DEVICE));
  t0 = now();
  assert_int_equal(launch(0, k, 0, NULL), OFFLOAD_SUCCESS);
  double live_ms = (now() - t0) * 1e3;
  printf("%d live guarded objects (%s): the launch after allocating them "
         "applied their protections in %.1f ms (%.2f us per object)\n",
         LIVE, mode, live_ms, live_ms * 1e3 / LIVE);
  for (int i = 0; i < LIVE; i++)
    assert_int_equal(__tgt_rtl_data_delete(0, p[i]), OFFLOAD_SUCCESS);
  /* 100000 small allocations, then frees, with guard pages (more than
   * vm.max_map_count allows with mprotect: that server stops guarding). */
  t0 = now();
  for (int i = 0; i < N; i++) {
    p[i] = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
    assert_non_null(p[i]);
  }
  double alloc_us = (now() - t0) * 1e6 / N;
  t0 = now();
  for (int i = 0; i < N; i++)
    assert_int_equal(__tgt_rtl_data_delete(0, p[i]), OFFLOAD_SUCCESS);
  double free_us = (now() - t0) * 1e6 / N;
  t0 = now();
  assert_int_equal(launch(0, k, 0, NULL), OFFLOAD_SUCCESS);
  double flush_ms = (now() - t0) * 1e3;
  printf("100000 guarded 64-byte objects (%s): alloc %.3f us, free %.3f us "
         "each; the next launch applied the %d protection changes in %.1f ms "
         "(guards %s)\n",
         mode, alloc_us, free_us, 2 * N, flush_ms,
         ctl->guards_disabled ? "turned off" : "still on");
  free(p);
  assert_int_equal(__tgt_rtl_deinit_plugin(), OFFLOAD_SUCCESS);
  test_image_free(&img);
}

int main(void) {
  use_runtime_or_system_libomp();
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_measure)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
