/*
 * test_report.c - decoding of map types and source locations (what compiler
 * teams read in LIBOMPTARGET_INFO output), and the per-thread failure cause.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launch.h"
#include "report.h"

static void test_map_type_motion(void **state) {
  (void)state;
  char buf[256];
  assert_string_equal(map_type_string(0, buf, sizeof buf), "alloc");
  assert_string_equal(map_type_string(0x1, buf, sizeof buf), "to");
  assert_string_equal(map_type_string(0x2, buf, sizeof buf), "from");
  assert_string_equal(map_type_string(0x3, buf, sizeof buf), "tofrom");
}

static void test_map_type_modifiers(void **state) {
  (void)state;
  char buf[256];
  /* clang 13-19's struct member: TO|FROM|PTR_AND_OBJ|MEMBER_OF(1) */
  assert_string_equal(
      map_type_string(0x1000000000013LL, buf, sizeof buf),
      "tofrom|ptr_and_obj|member_of(1)");
  /* an implicit scalar: TO|FROM|TARGET_PARAM|IMPLICIT */
  assert_string_equal(map_type_string(0x223, buf, sizeof buf),
                      "tofrom|target_param|implicit");
  /* clang 22's ATTACH */
  assert_string_equal(map_type_string(0x4000, buf, sizeof buf),
                      "alloc|attach");
  assert_string_equal(map_type_string(0x1000 | 0x2000 | 0x4, buf,
                                             sizeof buf),
                      "alloc|always|present|ompx_hold");
  assert_string_equal(map_type_string(0x120, buf, sizeof buf),
                      "alloc|target_param|literal");
  assert_string_equal(
      map_type_string(OMP_TGT_MAPTYPE_NON_CONTIG | 0x2, buf,
                             sizeof buf),
      "from|non_contig");
}

static void test_map_type_unknown_bits(void **state) {
  (void)state;
  char buf[256];
  assert_string_equal(map_type_string(0x800000 | 0x1, buf, sizeof buf),
                      "to|unknown(0x800000)");
  /* a short buffer is truncated, never overrun */
  char tiny[8];
  memset(tiny, 'x', sizeof tiny);
  map_type_string(0x3 | 0x20 | 0x200, tiny, sizeof tiny);
  assert_int_equal(tiny[sizeof tiny - 1], '\0');
}

static void test_location(void **state) {
  (void)state;
  char buf[256];
  ident_t loc = {0, 2, 0, 0, ";prog.c;main;25;3;;"};
  assert_string_equal(report_location(&loc, buf, sizeof buf),
                      "prog.c:25:3 (in main)");
  ident_t unknown = {0, 2, 0, 0, ";unknown;unknown;0;0;;"};
  assert_string_equal(report_location(&unknown, buf, sizeof buf),
                      "unknown location");
  assert_string_equal(report_location(NULL, buf, sizeof buf),
                      "unknown location");
  ident_t broken = {0, 2, 0, 0, "no semicolons"};
  assert_string_equal(report_location(&broken, buf, sizeof buf),
                      "unknown location");
}

static void test_error_cause_accumulates(void **state) {
  (void)state;
  report_error_clear();
  assert_string_equal(report_error_get(), "");
  report_error_set("first %d", 1);
  report_error_set("context %s", "two");
  assert_string_equal(report_error_get(), "first 1; context two");
  report_error_clear();
  assert_string_equal(report_error_get(), "");
}

/* The finding of a failure (for the checks' report): the first rule set
 * wins, as the first cause does; the kernel is kept; clearing the cause
 * clears it. */
static void test_finding_first_rule_wins(void **state) {
  (void)state;
  report_error_clear();
  const struct report_finding *f = report_finding_get();
  assert_string_equal(f->rule, "");
  report_finding_kernel("__omp_offloading_fd00_1_main_l12");
  report_finding_rule("past-end-of-mapping", "v[0:n - 1]");
  report_finding_rule("freed-device-copy", "w");
  report_finding_kernel("other");
  assert_string_equal(f->rule, "past-end-of-mapping");
  assert_string_equal(f->variable, "v[0:n - 1]");
  assert_string_equal(f->kernel, "__omp_offloading_fd00_1_main_l12");
  report_finding_rule("host-address", NULL);
  report_error_clear();
  assert_string_equal(f->rule, "");
  assert_string_equal(f->variable, "");
  assert_string_equal(f->kernel, "");
  report_finding_rule("host-address", NULL);
  assert_string_equal(f->variable, "");
  report_error_clear();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_map_type_motion),
      cmocka_unit_test(test_map_type_modifiers),
      cmocka_unit_test(test_map_type_unknown_bits),
      cmocka_unit_test(test_location),
      cmocka_unit_test(test_error_cause_accumulates),
      cmocka_unit_test(test_finding_first_rule_wins),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
