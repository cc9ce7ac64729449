/*
 * test_async.c - the seed's asynchronous interface (seed 000) driven
 * directly, on a __tgt_bin_desc built by hand (the device image is
 * build/tests/abi/kernels.so), with two simdevice devices.
 *
 * No timings are asserted: that operations are asynchronous is shown by
 * state (a copy back that has not landed yet, an operation still pending),
 * and that kernels of different operations run at the same time by a
 * rendezvous (one kernel waits for a flag another one raises).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi_image.h"
#include "omptarget.h"

static const char step_region, wait_region, set_region, wait_read_region;
static long host_flag; /* host twin of device_flag */

static __tgt_offload_entry host_entries[] = {
    {(void *)&step_region, "slow_step_kernel", 0, 0, 0},
    {(void *)&wait_region, "wait_flag_kernel", 0, 0, 0},
    {(void *)&set_region, "set_flag_kernel", 0, 0, 0},
    {(void *)&host_flag, "device_flag", sizeof(long), 0, 0},
    {(void *)&wait_read_region, "wait_flag_read_kernel", 0, 0, 0},
};
#define NUM_ENTRIES (sizeof host_entries / sizeof host_entries[0])

static struct abi_image kernels;

/* Completion callbacks: how often each param was reported. */
#define MAX_PARAMS 16
static int callback_count[MAX_PARAMS];
static void on_complete(tgt_callback_param_t param) {
  intptr_t i = (intptr_t)param;
  if (i >= 0 && i < MAX_PARAMS)
    __atomic_add_fetch(&callback_count[i], 1, __ATOMIC_RELAXED);
}

static int setup(void **state) {
  (void)state;
  /* before the first call into libomptarget: the plugin reads it once */
  setenv("SIMDEVICE_NUM_DEVICES", "2", 1);
  if (abi_kernels_register(&kernels, NULL, host_entries, NUM_ENTRIES) != 0)
    return -1;
  __tgt_init_dep(on_complete);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  abi_image_unregister(&kernels);
  return 0;
}

/* Polls until nothing is pending (at most ~20 s). */
static void drain(void) {
  for (int i = 0; i < 20000 && __tgt_process_dep() != 0; i++)
    usleep(1000);
  assert_int_equal(__tgt_process_dep(), 0);
}

/* One slow_step_kernel launch on `device`: x = x * 10 + v after `us`. */
static int32_t step_async(int32_t device, long *x, long *v, long *us,
                          int32_t ndeps, tgt_event_t *deps, tgt_event_t *ev,
                          intptr_t param) {
  static int32_t types[3] = {0x23 /* tofrom|target_param */,
                             0x120 /* literal|target_param */, 0x120};
  void *base[3] = {x, (void *)*v, (void *)*us};
  void *begin[3] = {x, (void *)*v, (void *)*us};
  int64_t sizes[3] = {sizeof *x, 0, 0};
  return __tgt_target_async(device, (void *)&step_region, 3, base, begin,
                            sizes, types, types, ndeps, deps, ev,
                            (tgt_callback_param_t)param);
}

static void test_nothing_pending(void **state) {
  (void)state;
  assert_int_equal(__tgt_process_dep(), 0);
}

/* A region on device 0, then one on device 1 that depends on it: the
 * second sees the first's copy back, whatever their durations. */
static void test_order_across_devices(void **state) {
  (void)state;
  memset(callback_count, 0, sizeof callback_count);
  long x = 0, v1 = 1, v2 = 2, slow = 200000, fast = 0;
  tgt_event_t first = NULL, second = NULL;
  assert_int_equal(step_async(0, &x, &v1, &slow, 0, NULL, &first, 1), 0);
  assert_non_null(first);
  /* dispatched, not finished: the copy back has not landed */
  assert_int_equal(x, 0);
  assert_true(__tgt_process_dep() >= 1);
  assert_int_equal(callback_count[1], 0);
  assert_int_not_equal(__tgt_enforce_dep(0, 1, first), 0);
  assert_int_equal(step_async(1, &x, &v2, &fast, 1, &first, &second, 2), 0);
  drain();
  assert_int_equal(x, 12); /* (0 * 10 + 1) * 10 + 2: first, then second */
  assert_int_equal(callback_count[1], 1);
  assert_int_equal(callback_count[2], 1);
  /* polling again calls nobody again */
  assert_int_equal(__tgt_process_dep(), 0);
  assert_int_equal(callback_count[1], 1);
  assert_int_equal(callback_count[2], 1);
  __tgt_release_dep(first);
  __tgt_release_dep(second);
}

/* Data operations: begin (to), a region, update (from), end; chained. */
static void test_data_chain(void **state) {
  (void)state;
  memset(callback_count, 0, sizeof callback_count);
  long x = 3, v = 4, us = 50000;
  void *base[1] = {&x}, *begin[1] = {&x};
  int64_t sizes[1] = {sizeof x};
  int32_t to[1] = {0x1}, from[1] = {0x2};
  tgt_event_t ev[4] = {0};
  __tgt_target_async_data_begin(0, 1, base, begin, sizes, to, 0, NULL, &ev[0],
                                (tgt_callback_param_t)3);
  assert_non_null(ev[0]);
  assert_int_equal(step_async(0, &x, &v, &us, 1, &ev[0], &ev[1], 4), 0);
  __tgt_target_async_data_update(0, 1, base, begin, sizes, from, 1, &ev[1],
                                 &ev[2], (tgt_callback_param_t)5);
  __tgt_target_async_data_end(0, 1, base, begin, sizes, from, 1, &ev[2],
                              &ev[3], (tgt_callback_param_t)6);
  drain();
  /* the region ran on the mapped copy (refcount 2, so it did not copy
   * back itself); update brought 34 back */
  assert_int_equal(x, 34);
  for (int i = 3; i <= 6; i++)
    assert_int_equal(callback_count[i], 1);
  for (int i = 0; i < 4; i++)
    __tgt_release_dep(ev[i]);
}

/* Two regions in flight at once on one device: the first waits for a flag
 * that only the second raises. */
static void test_kernels_overlap(void **state) {
  (void)state;
  long seen = -1;
  int32_t types[1] = {0x22}; /* from|target_param */
  void *base[1] = {&seen}, *begin[1] = {&seen};
  int64_t sizes[1] = {sizeof seen};
  tgt_event_t waiter = NULL, setter = NULL;
  assert_int_equal(__tgt_target_async(0, (void *)&wait_region, 1, base, begin,
                                      sizes, types, NULL, 0, NULL, &waiter,
                                      (tgt_callback_param_t)7),
                   0);
  assert_int_equal(__tgt_target_async(0, (void *)&set_region, 0, NULL, NULL,
                                      NULL, NULL, NULL, 0, NULL, &setter,
                                      (tgt_callback_param_t)8),
                   0);
  drain();
  assert_int_equal(seen, 1);
  __tgt_release_dep(waiter);
  __tgt_release_dep(setter);
}

/* A region in flight keeps the device memory of what it mapped even when
 * another construct removes the mapping meanwhile: `in` is entered, a
 * region that reads it late is dispatched (count 2, then 1 after its own
 * end), and exit data drops the count to 0 while the kernel still waits.
 * The entry leaves the table at once; its memory (freed memory is
 * inaccessible on simdevice) lives until the region completes. */
static void test_removed_entry_outlives_region(void **state) {
  (void)state;
  static long in[512]; /* one page of device memory */
  long out = 0;
  in[0] = 42;
  host_flag = 0; /* lower the device's flag again */
  void *fbase[1] = {&host_flag};
  int64_t fsize[1] = {sizeof host_flag};
  int64_t fto[1] = {0x1};
  __tgt_target_data_update(0, 1, fbase, fbase, fsize, fto);
  void *ibase[1] = {in};
  int64_t isize[1] = {sizeof in};
  int64_t to[1] = {0x1}, release[1] = {0x0};
  __tgt_target_data_begin(0, 1, ibase, ibase, isize, to);
  int32_t types[2] = {0x22 /* from|param */, 0x21 /* to|param */};
  void *base[2] = {&out, in};
  int64_t sizes[2] = {sizeof out, sizeof in};
  tgt_event_t reader = NULL, setter = NULL;
  assert_int_equal(__tgt_target_async(0, (void *)&wait_read_region, 2, base,
                                      base, sizes, types, NULL, 0, NULL,
                                      &reader, (tgt_callback_param_t)10),
                   0);
  __tgt_target_data_end(0, 1, ibase, ibase, isize, release);
  assert_int_equal(omp_target_is_present(in, 0), 0);
  /* the next launch also carries the protection of freed memory */
  assert_int_equal(__tgt_target_async(0, (void *)&set_region, 0, NULL, NULL,
                                      NULL, NULL, NULL, 0, NULL, &setter,
                                      (tgt_callback_param_t)11),
                   0);
  drain();
  assert_int_equal(out, 42);
  assert_int_equal(omp_target_is_present(in, 0), 0);
  __tgt_release_dep(reader);
  __tgt_release_dep(setter);
}

/* The seed's duplicated args_maptype: a different second array is refused
 * with a message naming the rule (a failed construct under the default
 * policy with a device ends the program, so this runs in a child). */
static void test_maptype_again_mismatch(void **state) {
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    long x = 0, v = 1, us = 0;
    static int32_t types[3] = {0x23, 0x120, 0x120};
    int32_t other[3] = {0x23, 0x120, 0x120};
    void *base[3] = {&x, (void *)v, (void *)us};
    int64_t sizes[3] = {sizeof x, 0, 0};
    tgt_event_t ev = NULL;
    int32_t rc = __tgt_target_async(0, (void *)&step_region, 3, base, base,
                                    sizes, types, other, 0, NULL, &ev,
                                    (tgt_callback_param_t)9);
    _exit(rc == 0 ? 3 : 4); /* not reached: the policy ends the child */
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 1);
  /* the parent's own state is untouched */
  assert_int_equal(__tgt_process_dep(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nothing_pending),
      cmocka_unit_test(test_order_across_devices),
      cmocka_unit_test(test_data_chain),
      cmocka_unit_test(test_kernels_overlap),
      cmocka_unit_test(test_removed_entry_outlives_region),
      cmocka_unit_test(test_maptype_again_mismatch),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
