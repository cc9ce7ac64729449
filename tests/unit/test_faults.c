/*
 * test_faults.c - the fault injector (src/faults.c) through the real call
 * sites of src/device_ops.c, on a device backed by a test-double plugin that
 * counts the calls that reach it: the spec grammar and its errors, failing
 * the N-th call of a function or a site, once or repeatedly, the counters,
 * "absent" for optional functions only, and the site table's consistency.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "device.h"
#include "faults.h"

/* ---- the test-double plugin: host memory, every call counted ------------ */
static int submits_reached, allocs_reached;

static void *double_alloc(int32_t id, int64_t size, void *hst, int32_t kind) {
  (void)id, (void)hst, (void)kind;
  allocs_reached++;
  return malloc((size_t)size);
}
static int32_t double_delete(int32_t id, void *p) {
  (void)id;
  free(p);
  return OFFLOAD_SUCCESS;
}
static int32_t double_submit(int32_t id, void *tgt, void *hst, int64_t size) {
  (void)id;
  submits_reached++;
  memcpy(tgt, hst, (size_t)size);
  return OFFLOAD_SUCCESS;
}
static int32_t double_retrieve(int32_t id, void *hst, void *tgt, int64_t size) {
  (void)id;
  memcpy(hst, tgt, (size_t)size);
  return OFFLOAD_SUCCESS;
}

static struct plugin plug;
static struct device dev;

static int setup(void **state) {
  (void)state;
  memset(&plug, 0, sizeof plug);
  plug.name = "double";
  plug.ops.data_alloc = double_alloc;
  plug.ops.data_delete = double_delete;
  plug.ops.data_submit = double_submit;
  plug.ops.data_retrieve = double_retrieve;
  device_init_for_test(&dev, &plug, 0);
  submits_reached = allocs_reached = 0;
  faults_reset();
  report_error_clear();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  faults_reset();
  mapping_table_destroy(&dev.map);
  return 0;
}

static int configure(const char *spec) {
  char why[256];
  return faults_configure(spec, why, sizeof why);
}

static void test_nth_call_of_a_function_fails_once(void **state) {
  (void)state;
  assert_int_equal(configure("data_submit@2"), 0);
  int x = 1;
  void *t = device_alloc(&dev, sizeof x, &x, 0);
  assert_non_null(t);
  assert_int_equal(device_submit(&dev, t, &x, sizeof x), OFFLOAD_SUCCESS);
  assert_int_equal(device_submit(&dev, t, &x, sizeof x), OFFLOAD_FAIL);
  /* the failure is explained like a real one */
  assert_non_null(strstr(report_error_get(), "copying 4 bytes from host"));
  assert_int_equal(device_submit(&dev, t, &x, sizeof x), OFFLOAD_SUCCESS);
  /* the failed call never reached the plugin */
  assert_int_equal(submits_reached, 2);
  assert_int_equal(faults_injected(), 1);
  assert_int_equal(faults_function_calls(FAULT_FN_data_submit), 3);
  assert_int_equal(faults_site_calls(FAULT_SITE_DEVOPS_SUBMIT), 3);
  assert_int_equal(faults_site_calls(FAULT_SITE_DEVOPS_ALLOC), 1);
  device_delete(&dev, t);
}

static void test_repeat_fails_every_later_call(void **state) {
  (void)state;
  assert_int_equal(configure("site=DEVOPS_ALLOC@2:repeat"), 0);
  int x = 0;
  void *first = device_alloc(&dev, 8, &x, 0);
  assert_non_null(first);
  assert_null(device_alloc(&dev, 8, &x, 0));
  assert_null(device_alloc(&dev, 8, &x, 0));
  assert_int_equal(allocs_reached, 1);
  assert_int_equal(faults_injected(), 2);
  device_delete(&dev, first);
}

static void test_site_by_number_only_hits_that_site(void **state) {
  (void)state;
  char num[16];
  snprintf(num, sizeof num, "site=%d", FAULT_SITE_DEVOPS_RETRIEVE);
  assert_int_equal(configure(num), 0);
  int x = 5, y = 0;
  void *t = device_alloc(&dev, sizeof x, &x, 0);
  assert_int_equal(device_submit(&dev, t, &x, sizeof x), OFFLOAD_SUCCESS);
  assert_int_equal(device_retrieve(&dev, &y, t, sizeof y), OFFLOAD_FAIL);
  assert_int_equal(y, 0);
  assert_int_equal(device_retrieve(&dev, &y, t, sizeof y), OFFLOAD_SUCCESS);
  assert_int_equal(y, 5);
  device_delete(&dev, t);
}

static void test_no_rule_counts_nothing_and_calls_through(void **state) {
  (void)state;
  assert_int_equal(faults_armed, 0);
  int x = 3;
  void *t = device_alloc(&dev, sizeof x, &x, 0);
  assert_int_equal(device_submit(&dev, t, &x, sizeof x), OFFLOAD_SUCCESS);
  assert_int_equal(faults_function_calls(FAULT_FN_data_submit), 0);
  assert_int_equal(submits_reached, 1);
  device_delete(&dev, t);
}

static void test_count_mode_counts_without_failing(void **state) {
  (void)state;
  assert_int_equal(configure("count"), 0);
  int x = 3;
  void *t = device_alloc(&dev, sizeof x, &x, 0);
  for (int i = 0; i < 4; i++)
    assert_int_equal(device_submit(&dev, t, &x, sizeof x), OFFLOAD_SUCCESS);
  assert_int_equal(faults_site_calls(FAULT_SITE_DEVOPS_SUBMIT), 4);
  assert_int_equal(faults_injected(), 0);
  char path[] = "/tmp/simtarget-fault-counts-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(faults_write_counts(path), 0);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256];
  int seen = 0;
  while (fgets(line, sizeof line, f))
    seen += !strcmp(line, "site 4 DEVOPS_SUBMIT data_submit 4\n") ||
            !strcmp(line, "function data_submit 4\n");
  fclose(f);
  unlink(path);
  assert_int_equal(seen, 2);
  device_delete(&dev, t);
}

static void test_bad_specs_are_refused_with_the_rule_named(void **state) {
  (void)state;
  static const struct {
    const char *spec, *named;
  } bad[] = {
      {"data_sbmit", "data_sbmit"},
      {"data_submit@0", "data_submit@0"},
      {"data_submit@x", "data_submit@x"},
      {"data_submit:twice", "twice"},
      {"site=999", "site=999"},
      {"site=NO_SUCH_SITE", "NO_SUCH_SITE"},
      {"absent=data_submit", "optional"}, /* required: cannot be absent */
      {"absent=nothing", "absent=nothing"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char why[256] = "";
    assert_int_equal(faults_configure(bad[i].spec, why, sizeof why), -1);
    if (!strstr(why, bad[i].named))
      fail_msg("'%s': message \"%s\" does not name \"%s\"", bad[i].spec, why,
               bad[i].named);
    assert_int_equal(faults_armed, 0); /* nothing half-configured */
  }
  /* a plugin's own point is left to that plugin */
  assert_int_equal(configure("simdevice.spawn@2:repeat"), 0);
  assert_int_equal(configure("__tgt_rtl_data_submit@1:once, data_alloc"), 0);
}

static void test_absent_only_for_optional_functions(void **state) {
  (void)state;
  assert_int_equal(configure("absent=data_exchange,absent=init_plugin"), 0);
  assert_true(faults_absent(FAULT_FN_data_exchange));
  assert_true(faults_absent(FAULT_FN_init_plugin));
  assert_false(faults_absent(FAULT_FN_unload_binary));
  faults_reset();
  assert_false(faults_absent(FAULT_FN_data_exchange));
}

static void test_site_table_is_consistent(void **state) {
  (void)state;
  int sites = 0;
  for (int s = 0; s < FAULT_SITE_LIMIT; s++) {
    const char *id = faults_site_name(s);
    if (!id)
      continue;
    sites++;
    assert_int_equal(faults_site_by_name(id), s);
  }
#define COUNT_ROW(num, id, fn, where) +1
  assert_int_equal(sites, 0 FAULT_SITES(COUNT_ROW));
#undef COUNT_ROW
  for (int f = 0; f < FAULT_FN_COUNT; f++)
    assert_int_equal(faults_function_by_name(faults_function_name(f)), f);
  assert_null(faults_site_name(0));
  assert_int_equal(faults_function_by_name("nope"), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_nth_call_of_a_function_fails_once,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_repeat_fails_every_later_call,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_site_by_number_only_hits_that_site,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_no_rule_counts_nothing_and_calls_through, setup, teardown),
      cmocka_unit_test_setup_teardown(test_count_mode_counts_without_failing,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_bad_specs_are_refused_with_the_rule_named, setup, teardown),
      cmocka_unit_test_setup_teardown(test_absent_only_for_optional_functions,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_site_table_is_consistent, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
