/*
 * test_cpu_load.c - the oversubscription verdict (common/cpu_load.h) on
 * scripted readings of the runnable count and a scripted clock: a single
 * reading over the CPUs (a kernel thread, a starting process) does not
 * make waiters sleep, it is retaken 1 ms later; two in a row do; one
 * reading at or under the CPUs ends it; an unreadable count changes
 * nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static int64_t fake_now_ns;
static int fake_runnable;
static int readings;

static int fake_read_runnable(void) {
  readings++;
  return fake_runnable;
}

static int64_t fake_clock_ns(void) { return fake_now_ns; }

#define CPU_LOAD_RUNNABLE fake_read_runnable
#define CPU_LOAD_NOW_NS fake_clock_ns
#include "cpu_load.h"

/* The verdict at `ms` (from a start far from 0) with `runnable` threads. */
static int verdict_at(int64_t ms, int runnable) {
  fake_now_ns = 1000000000 + ms * 1000000;
  fake_runnable = runnable;
  return cpu_load_oversubscribed();
}

static int cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (int)n;
}

static int reset(void **state) {
  (void)state;
  atomic_store(&cpu_load_next_ns, 0);
  atomic_store(&cpu_load_over, 0);
  atomic_store(&cpu_load_high, 0);
  readings = 0;
  return 0;
}

static void test_one_high_reading_is_retaken_not_believed(void **state) {
  (void)state;
  int over = cpus() + 1;
  assert_int_equal(verdict_at(0, over), 0);
  assert_int_equal(readings, 1);
  /* retaken after CPU_LOAD_CONFIRM_NS, not after the 10 ms period */
  assert_int_equal(verdict_at(0, over), 0);
  assert_int_equal(readings, 1);
  assert_int_equal(verdict_at(1, cpus()), 0);
  assert_int_equal(readings, 2);
  /* the quiet reading reset it: one more high reading is again alone */
  assert_int_equal(verdict_at(11, over), 0);
  assert_int_equal(readings, 3);
}

static void test_two_high_readings_make_it_oversubscribed(void **state) {
  (void)state;
  int over = cpus() + 2;
  assert_int_equal(verdict_at(0, over), 0);
  assert_int_equal(verdict_at(1, over), 1);
  assert_int_equal(readings, 2);
  /* believed, it stays until the next reading, a period later */
  assert_int_equal(verdict_at(5, cpus()), 1);
  assert_int_equal(readings, 2);
  assert_int_equal(verdict_at(11, over), 1);
  assert_int_equal(readings, 3);
  /* one reading at the CPUs ends it at once */
  assert_int_equal(verdict_at(21, cpus()), 0);
  assert_int_equal(readings, 4);
}

static void test_unreadable_count_keeps_the_verdict(void **state) {
  (void)state;
  int over = cpus() + 1;
  verdict_at(0, over);
  assert_int_equal(verdict_at(1, over), 1);
  assert_int_equal(verdict_at(11, -1), 1);
  assert_int_equal(verdict_at(21, cpus()), 0);
  assert_int_equal(verdict_at(31, -1), 0);
  assert_int_equal(readings, 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_one_high_reading_is_retaken_not_believed, reset),
      cmocka_unit_test_setup(test_two_high_readings_make_it_oversubscribed, reset),
      cmocka_unit_test_setup(test_unreadable_count_keeps_the_verdict, reset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
