/*
 * test_multi.c - two devices with small memory and no guard pages
 * (SIMDEVICE_NUM_DEVICES=2, SIMDEVICE_MEMORY=1M, SIMDEVICE_GUARD=0):
 * separate processes and address ranges, out-of-memory as a NULL with a
 * reason, copies between the devices, and a clean deinit.
 */
#include "simdev_test.h"

static struct test_image img;

static int setup(void **state) {
  (void)state;
  setenv("SIMDEVICE_NUM_DEVICES", "2", 1);
  setenv("SIMDEVICE_MEMORY", "1M", 1);
  setenv("SIMDEVICE_GUARD", "0", 1);
  use_runtime_or_system_libomp();
  test_image_build(&img);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_deinit_plugin(), OFFLOAD_SUCCESS);
  assert_int_equal(find_server(), -1);
  test_image_free(&img);
  return 0;
}

static void test_two_devices_two_processes(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_number_of_devices(), 2);
  assert_int_equal(__tgt_rtl_init_device(0), OFFLOAD_SUCCESS);
  pid_t p0 = find_server();
  assert_int_equal(__tgt_rtl_init_device(1), OFFLOAD_SUCCESS);
  pid_t p1 = find_server();
  assert_true(p0 > 0 && p1 > 0 && p0 != p1);
  __tgt_target_table *t0 = __tgt_rtl_load_binary(0, &img.image);
  __tgt_target_table *t1 = __tgt_rtl_load_binary(1, &img.image);
  assert_non_null(t0);
  assert_non_null(t1);
  /* Unguarded, each server says so (no probe, no protections). */
  for (int dev = 0; dev < 2; dev++) {
    const struct simdev_control *ctl = control_area(dev);
    assert_non_null(ctl);
    assert_int_equal(ctl->guard_mode, SIMDEV_GUARD_OFF);
  }
  /* Each device has its own copy of the globals. */
  int g[4] = {9, 9, 9, 9}, back[4];
  assert_int_equal(__tgt_rtl_data_submit(0, t0->EntriesBegin[E_GVEC].addr, g,
                                         sizeof g),
                   OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_retrieve(1, back, t1->EntriesBegin[E_GVEC].addr,
                                           sizeof back),
                   OFFLOAD_SUCCESS);
  assert_int_equal(back[0], 1);
  /* Device memory ranges are disjoint and 64-byte aligned without guards. */
  char *a = __tgt_rtl_data_alloc(0, 100, NULL, TARGET_ALLOC_DEVICE);
  char *b = __tgt_rtl_data_alloc(1, 100, NULL, TARGET_ALLOC_DEVICE);
  char *c = __tgt_rtl_data_alloc(0, 3, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(c);
  assert_int_equal((uintptr_t)a % 64, 0);
  assert_int_equal((uintptr_t)c % 64, 0);
  assert_true(b - a >= (1 << 20) || a - b >= (1 << 20));
  /* Device-to-device copy. */
  char msg[100] = "hello from device 0";
  assert_int_equal(__tgt_rtl_data_submit(0, a, msg, sizeof msg), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_is_data_exchangable(0, 1), 1);
  assert_int_equal(__tgt_rtl_is_data_exchangable(0, 2), 0);
  assert_int_equal(__tgt_rtl_data_exchange(0, a, 1, b, sizeof msg),
                   OFFLOAD_SUCCESS);
  char got[100] = "";
  assert_int_equal(__tgt_rtl_data_retrieve(1, got, b, sizeof got), OFFLOAD_SUCCESS);
  assert_string_equal(got, msg);
  /* A kernel on device 1 sees device 1's data. */
  uint64_t fill[2] = {(uint64_t)b, 4};
  assert_int_equal(launch(1, t1->EntriesBegin[E_FILL].addr, 2, fill),
                   OFFLOAD_SUCCESS);
  double d[4];
  assert_int_equal(__tgt_rtl_data_retrieve(1, d, b, sizeof d), OFFLOAD_SUCCESS);
  assert_true(d[3] == 3.0);
  /* A device-to-device copy past the end of `a` (into `c`, its neighbour)
   * is refused, naming the range and the allocation, and copies nothing. */
  assert_int_equal(__tgt_rtl_data_submit(0, c, "ok", 3), OFFLOAD_SUCCESS);
  char *wide = __tgt_rtl_data_alloc(1, 200, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(wide);
  assert_int_equal(__tgt_rtl_data_exchange(1, wide, 0, a, 200), OFFLOAD_FAIL);
  __tgt_rtl_error refused = last_error(0);
  assert_non_null(strstr(refused.message,
                         "data_exchange (destination) of 200 bytes"));
  assert_non_null(strstr(refused.message,
                         "past the end of the 100-byte device allocation"));
  char kept[3] = "";
  assert_int_equal(__tgt_rtl_data_retrieve(0, kept, c, 3), OFFLOAD_SUCCESS);
  assert_string_equal(kept, "ok");
  assert_int_equal(__tgt_rtl_data_exchange(0, c, 1, b, 4), OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "data_exchange (source)"));
  assert_int_equal(__tgt_rtl_data_delete(1, wide), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, a), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(1, b), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, c), OFFLOAD_SUCCESS);
}

static void test_out_of_memory(void **state) {
  (void)state;
  assert_null(__tgt_rtl_data_alloc(0, 2 << 20, NULL, TARGET_ALLOC_DEVICE));
  assert_non_null(strstr(last_error(0).message, "SIMDEVICE_MEMORY"));
  void *blocks[64];
  int n = 0;
  while (n < 64 && (blocks[n] = __tgt_rtl_data_alloc(0, 100 << 10, NULL,
                                                     TARGET_ALLOC_DEVICE)))
    n++;
  assert_true(n >= 9 && n <= 10); /* 1 MiB / 100 KiB */
  __tgt_rtl_error err = last_error(0);
  assert_non_null(strstr(err.message, "out of device memory"));
  for (int i = 0; i < n; i++)
    assert_int_equal(__tgt_rtl_data_delete(0, blocks[i]), OFFLOAD_SUCCESS);
  void *all = __tgt_rtl_data_alloc(0, 1 << 20, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(all);
  assert_int_equal(__tgt_rtl_data_delete(0, all), OFFLOAD_SUCCESS);
}

static void test_deinit_and_reinit(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_deinit_device(1), OFFLOAD_SUCCESS);
  assert_null(__tgt_rtl_data_alloc(7, 8, NULL, TARGET_ALLOC_DEVICE));
  assert_int_equal(__tgt_rtl_data_submit(1, (void *)0x610000000000ull, "x", 1),
                   OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(1).message, "before init_device"));
  /* A released device is not set up again behind init_device's back (at
   * exit, a thread that waited for the lock must not start a process). */
  assert_null(__tgt_rtl_load_binary(1, &img.image));
  assert_non_null(strstr(last_error(1).message,
                         "device 1 is not initialised: a call before "
                         "init_device, or after deinit_device"));
  assert_null(__tgt_rtl_data_alloc(1, 8, NULL, TARGET_ALLOC_DEVICE));
  assert_non_null(strstr(last_error(1).message, "not initialised"));
  assert_int_equal(__tgt_rtl_init_device(1), OFFLOAD_SUCCESS);
  __tgt_target_table *t1 = __tgt_rtl_load_binary(1, &img.image);
  assert_non_null(t1);
  assert_int_equal(launch(1, t1->EntriesBegin[E_EMPTY].addr, 0, NULL),
                   OFFLOAD_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_devices_two_processes),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_deinit_and_reinit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
