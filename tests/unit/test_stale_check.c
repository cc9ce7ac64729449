/*
 * test_stale_check.c - SIMTARGET_CHECK=stale (src/stale_check.c, its hooks
 * in src/maps.c, its setting in src/settings.c): against a test plugin
 * whose device memory is a malloc'ed block per allocation, a "kernel" being
 * a write into that block. Each rule is found where its bug is, with the
 * variable's name, and nothing is found where the program is right.
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
#include "maps.h"
#include "settings.h"
#include "stale_check.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)0)
#endif

/* The value of a host int the check may have marked undefined on purpose
 * (under memcheck, results the host has not got: `make valgrind`); the
 * test reads it to see that the program's data is its own. */
static int host_value(int *p) {
  VALGRIND_MAKE_MEM_DEFINED(p, sizeof *p);
  return *p;
}

#define TO OMP_TGT_MAPTYPE_TO
#define FROM OMP_TGT_MAPTYPE_FROM
#define ALWAYS OMP_TGT_MAPTYPE_ALWAYS
#define PARAM OMP_TGT_MAPTYPE_TARGET_PARAM

static void *tp_alloc(int32_t id, int64_t size, void *hst, int32_t kind) {
  (void)id, (void)hst, (void)kind;
  return calloc(1, size > 0 ? (size_t)size : 1);
}

static int32_t tp_delete(int32_t id, void *tgt) {
  (void)id;
  free(tgt);
  return OFFLOAD_SUCCESS;
}

static int32_t tp_submit(int32_t id, void *tgt, void *hst, int64_t size) {
  (void)id;
  memcpy(tgt, hst, (size_t)size);
  return OFFLOAD_SUCCESS;
}

static int32_t tp_retrieve(int32_t id, void *hst, void *tgt, int64_t size) {
  (void)id;
  memcpy(hst, tgt, (size_t)size);
  return OFFLOAD_SUCCESS;
}

static struct plugin plug;
static struct device dev;
static char report_path[64];

static int setup(void **state) {
  (void)state;
  snprintf(report_path, sizeof report_path, "/tmp/test_stale_%d.json",
           (int)getpid());
  unlink(report_path);
  setenv("SIMTARGET_CHECK", "stale", 1);
  setenv("SIMTARGET_CHECK_REPORT", report_path, 1);
  settings_reread_for_test();
  memset(&plug, 0, sizeof plug);
  plug.name = "testplugin";
  plug.ops.data_alloc = tp_alloc;
  plug.ops.data_delete = tp_delete;
  plug.ops.data_submit = tp_submit;
  plug.ops.data_retrieve = tp_retrieve;
  device_init_for_test(&dev, &plug, 0);
  report_error_clear();
  stale_check_construct(NULL, "test construct");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  mapping_table_destroy(&dev.map);
  pthread_mutex_destroy(&dev.lock);
  unlink(report_path);
  unsetenv("SIMTARGET_CHECK");
  unsetenv("SIMTARGET_CHECK_REPORT");
  settings_reread_for_test();
  return 0;
}

/* ----------------------------------------------------------- helpers */

typedef int (*map_fn)(struct device *, const struct map_args *);

/* One named object, base = begin (clang's name format). */
static int map1(map_fn fn, void *obj, int64_t size, int64_t type,
                const char *name) {
  void *b[1] = {obj}, *p[1] = {obj}, *n[1] = {(void *)name};
  int64_t s[1] = {size}, t[1] = {type};
  struct map_args a = {1, b, p, s, t, n, NULL};
  return fn(&dev, &a);
}

/* What the kernel would write: the device copy of host address obj. */
static void *device_copy(void *obj) {
  struct mapping_entry *e = NULL;
  pthread_mutex_lock(&dev.map.lock);
  mapping_lookup(&dev.map, (uintptr_t)obj, 1, &e);
  pthread_mutex_unlock(&dev.map.lock);
  assert_non_null(e);
  return (void *)(e->tgt_begin + ((uintptr_t)obj - e->hst_begin));
}

/* The report file's text ("" when there is none). */
static const char *report_text(void) {
  static char text[8192];
  text[0] = '\0';
  FILE *f = fopen(report_path, "r");
  if (f) {
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
  }
  return text;
}

static int count_lines(const char *text) {
  int n = 0;
  for (; *text; text++)
    n += *text == '\n';
  return n;
}

/* ------------------------------------------------------------- tests */

static void test_setting(void **state) {
  (void)state;
  assert_true(stale_check_on());
  setenv("SIMTARGET_CHECK", "bogus,STALE", 1);
  settings_reread_for_test();
  assert_true(stale_check_on()); /* any case; the unknown item left out */
  setenv("SIMTARGET_CHECK", "bogus", 1);
  settings_reread_for_test();
  assert_false(stale_check_on());
  unsetenv("SIMTARGET_CHECK");
  settings_reread_for_test();
  assert_false(stale_check_on());
}

/* `exit data map(release:)` of an array the device changed. */
static void test_released_unread(void **state) {
  (void)state;
  int a[16] = {0};
  assert_int_equal(map1(maps_data_begin, a, sizeof a, TO, ";a[0:16];t.c;3;1;;"), 0);
  ((int *)device_copy(a))[5] = 42; /* the kernel's result */
  assert_int_equal(map1(maps_data_end, a, sizeof a, 0, ";a[0:16];t.c;9;1;;"), 0);
  const char *text = report_text();
  assert_int_equal(count_lines(text), 1);
  assert_non_null(strstr(text, "\"rule\":\"released-unread\""));
  assert_non_null(strstr(text, "\"variable\":\"a[0:16]\""));
  assert_non_null(strstr(text, "bytes 20 to 20 of its 64"));
  assert_int_equal(host_value(&a[5]), 0); /* the program's data as without the check */
}

/* The same with `from`, and a release of what the device never changed:
 * nothing to say. */
static void test_copied_back_is_clean(void **state) {
  (void)state;
  int a[16] = {0}, b[16] = {0};
  assert_int_equal(map1(maps_data_begin, a, sizeof a, TO, ";a;t.c;1;1;;"), 0);
  assert_int_equal(map1(maps_data_begin, b, sizeof b, TO, ";b;t.c;1;1;;"), 0);
  ((int *)device_copy(a))[5] = 42;
  b[3] = 7; /* the host's own change: not the device's results */
  assert_int_equal(map1(maps_data_end, a, sizeof a, FROM, ";a;t.c;2;1;;"), 0);
  assert_int_equal(map1(maps_data_end, b, sizeof b, 0, ";b;t.c;2;1;;"), 0);
  assert_int_equal(a[5], 42);
  assert_string_equal(report_text(), "");
}

/* A region launched on a copy the host changed after mapping it `to`. */
static void test_stale_launch(void **state) {
  (void)state;
  double in[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  assert_int_equal(map1(maps_data_begin, in, sizeof in, TO, ";in;t.c;1;1;;"), 0);
  in[2] = 5; /* never sent */
  void *b[1] = {in}, *p[1] = {in}, *n[1] = {";in;t.c;4;1;;"};
  int64_t s[1] = {sizeof in}, t[1] = {TO | PARAM};
  struct map_args a = {1, b, p, s, t, n, NULL};
  struct maps_construct *c = maps_construct_new(&dev, &a, NULL);
  assert_non_null(c);
  assert_int_equal(maps_construct_begin(c), 0);
  assert_int_equal(maps_construct_end(c), 0);
  maps_construct_free(c);
  const char *text = report_text();
  assert_int_equal(count_lines(text), 1);
  assert_non_null(strstr(text, "\"rule\":\"stale-launch\""));
  assert_non_null(strstr(text, "\"variable\":\"in\""));
  /* `target update to` first: nothing to say */
  unlink(report_path);
  in[3] = 6;
  assert_int_equal(map1(maps_data_update, in, sizeof in, TO, ";in;t.c;5;1;;"), 0);
  c = maps_construct_new(&dev, &a, NULL);
  assert_non_null(c);
  assert_int_equal(maps_construct_begin(c), 0);
  assert_int_equal(maps_construct_end(c), 0);
  maps_construct_free(c);
  assert_string_equal(report_text(), "");
  assert_int_equal(map1(maps_data_end, in, sizeof in, 0, ";in;t.c;6;1;;"), 0);
}

/* An inner `from` skipped by the count, the host then changing what the
 * device changed too: the outer end's copy back overwrites it. */
static void test_from_skipped(void **state) {
  (void)state;
  int a[8] = {0};
  assert_int_equal(map1(maps_data_begin, a, sizeof a, TO | FROM, ";a;t.c;1;1;;"), 0);
  assert_int_equal(map1(maps_data_begin, a, sizeof a, FROM, ";a;t.c;2;1;;"), 0);
  ((int *)device_copy(a))[1] = 10;
  assert_int_equal(map1(maps_data_end, a, sizeof a, FROM, ";a;t.c;3;1;;"), 0);
  assert_int_equal(host_value(&a[1]), 0); /* the count stayed 1: nothing came back */
  a[1] += 1;                 /* the host works on its stale copy */
  assert_string_equal(report_text(), "");
  assert_int_equal(map1(maps_data_end, a, sizeof a, TO | FROM, ";a;t.c;4;1;;"), 0);
  const char *text = report_text();
  assert_int_equal(count_lines(text), 1);
  assert_non_null(strstr(text, "\"rule\":\"from-skipped\""));
  assert_int_equal(a[1], 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_setting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_released_unread, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copied_back_is_clean, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stale_launch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_from_skipped, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
