/*
 * test_check_findings.c - the JSON-lines finding writer: nothing without
 * SIMTARGET_CHECK_REPORT, one parseable line per finding, escaping, and
 * lines from two writers appended, not overwritten.
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

#include "check_findings.h"

static char report_path[] = "/tmp/simtarget-findings-XXXXXX";

static int make_report(void **state) {
  (void)state;
  int fd = mkstemp(report_path);
  assert_true(fd >= 0);
  close(fd);
  unlink(report_path);
  setenv(CHECK_REPORT_ENV, report_path, 1);
  return 0;
}

static int remove_report(void **state) {
  (void)state;
  unlink(report_path);
  memcpy(report_path + strlen(report_path) - 6, "XXXXXX", 6);
  unsetenv(CHECK_REPORT_ENV);
  return 0;
}

static char *read_report(void) {
  static char text[16384];
  FILE *f = fopen(report_path, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  return text;
}

static void test_unset_writes_nothing(void **state) {
  (void)state;
  unsetenv(CHECK_REPORT_ENV);
  struct check_finding f = {.rule = "r"};
  assert_int_equal(check_finding_write(&f), 0);
  assert_int_equal(access(report_path, F_OK), -1);
}

static void test_one_line_with_fields(void **state) {
  (void)state;
  struct check_finding f = {.check = "stale",
                            .rule = "released-unread",
                            .variable = "a",
                            .construct = "prog.c:12:3",
                            .message = "kept"};
  assert_int_equal(check_finding_write(&f), 1);
  assert_string_equal(read_report(),
                      "{\"check\":\"stale\",\"rule\":\"released-unread\","
                      "\"variable\":\"a\",\"construct\":\"prog.c:12:3\","
                      "\"message\":\"kept\"}\n");
}

static void test_escapes(void **state) {
  (void)state;
  struct check_finding f = {.rule = "r", .variable = "s.\"p\"\\[0:n]\n\t"};
  assert_int_equal(check_finding_write(&f), 1);
  assert_string_equal(read_report(),
                      "{\"rule\":\"r\",\"variable\":"
                      "\"s.\\\"p\\\"\\\\[0:n]\\u000a\\u0009\"}\n");
}

static void test_appends(void **state) {
  (void)state;
  struct check_finding a = {.rule = "first"}, b = {.rule = "second"};
  assert_int_equal(check_finding_write(&a), 1);
  assert_int_equal(check_finding_write(&b), 1);
  assert_string_equal(read_report(),
                      "{\"rule\":\"first\"}\n{\"rule\":\"second\"}\n");
}

/* A message too long for a line is dropped, the identifying fields kept. */
static void test_long_message_dropped(void **state) {
  (void)state;
  static char longtext[8000];
  memset(longtext, 'x', sizeof longtext - 1);
  struct check_finding f = {.rule = "r", .variable = "v", .message = longtext};
  assert_int_equal(check_finding_write(&f), 1);
  assert_string_equal(read_report(), "{\"rule\":\"r\",\"variable\":\"v\"}\n");
}

static void test_rule_required_and_bad_path(void **state) {
  (void)state;
  struct check_finding no_rule = {.variable = "v"};
  assert_int_equal(check_finding_write(&no_rule), -1);
  setenv(CHECK_REPORT_ENV, "/nonexistent-dir/report", 1);
  struct check_finding f = {.rule = "r"};
  assert_int_equal(check_finding_write(&f), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_unset_writes_nothing, make_report,
                                      remove_report),
      cmocka_unit_test_setup_teardown(test_one_line_with_fields, make_report,
                                      remove_report),
      cmocka_unit_test_setup_teardown(test_escapes, make_report, remove_report),
      cmocka_unit_test_setup_teardown(test_appends, make_report, remove_report),
      cmocka_unit_test_setup_teardown(test_long_message_dropped, make_report,
                                      remove_report),
      cmocka_unit_test_setup_teardown(test_rule_required_and_bad_path,
                                      make_report, remove_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
