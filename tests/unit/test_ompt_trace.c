/*
 * test_ompt_trace.c - OMPT device tracing's buffers (src/ompt_trace.c),
 * driven through the entry points a tool gets from ompt_trace_lookup: no
 * record before ompt_start_trace or for a type not enabled; records fill
 * the tool's buffers, a full buffer is completed before the next is
 * requested, and the cursor entry points walk exactly the records written;
 * a buffer too small goes back empty and its record is lost; flush and
 * stop hand over what is left, and nothing is recorded after stop; the
 * device time translates to the host's clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ompt_trace.h"

#define RECORD 104 /* sizeof(ompt_record_ompt_t) */

typedef void (*request_fn)(int, void **, size_t *);
typedef void (*complete_fn)(int, void *, size_t, size_t, int);

static struct {
  size_t give;       /* bytes of each buffer handed out */
  int requests;
  int completes;
  size_t completed_bytes[16];
  uint64_t host_ops[64]; /* read back through the cursor */
  int records;
} tool;

static void request(int dev, void **buffer, size_t *bytes) {
  (void)dev;
  tool.requests++;
  *bytes = tool.give;
  *buffer = malloc(tool.give);
}

static void complete(int dev, void *buffer, size_t bytes, size_t begin,
                     int owned) {
  (void)dev;
  int (*advance)(void *, void *, size_t, size_t, size_t *) =
      (int (*)(void *, void *, size_t, size_t, size_t *))ompt_trace_lookup(
          "ompt_advance_buffer_cursor");
  void *(*get)(void *, size_t) =
      (void *(*)(void *, size_t))ompt_trace_lookup("ompt_get_record_ompt");
  tool.completed_bytes[tool.completes++] = bytes;
  size_t cur = begin;
  while (bytes > 0) {
    const char *r = get(buffer, cur);
    uint64_t host_op;
    memcpy(&host_op, r + 32, sizeof host_op); /* record.target_data_op */
    tool.host_ops[tool.records++] = host_op;
    if (!advance(NULL, buffer, bytes, cur, &cur))
      break;
  }
  assert_int_equal(owned, 1);
  free(buffer);
}

static void op(int dev, uint64_t host_op) {
  struct ompt_trace_op o = {7, host_op, 2, (void *)0x10, 1, (void *)0x20,
                            dev, 8, NULL};
  if (ompt_trace_on(dev, 9))
    ompt_trace_data_op(dev, &o, 100, 200);
}

static int setup(void **state) {
  (void)state;
  memset(&tool, 0, sizeof tool);
  return 0;
}

static void test_buffers_and_cursor(void **state) {
  (void)state;
  void *dev = ompt_trace_device_handle(3);
  int (*set)(void *, unsigned, unsigned) = (int (*)(void *, unsigned,
      unsigned))ompt_trace_lookup("ompt_set_trace_ompt");
  int (*start)(void *, request_fn, complete_fn) = (int (*)(
      void *, request_fn, complete_fn))ompt_trace_lookup("ompt_start_trace");
  int (*stop)(void *) = (int (*)(void *))ompt_trace_lookup("ompt_stop_trace");
  op(3, 1); /* not started: nothing */
  assert_int_equal(set(dev, 1, 10), 5); /* kernels only */
  assert_int_equal(start(dev, request, complete), 1);
  assert_false(ompt_trace_on(3, 9));
  assert_true(ompt_trace_on(3, 10));
  assert_false(ompt_trace_on(4, 10)); /* another device */
  assert_int_equal(set(dev, 1, 0), 5);
  assert_int_equal(set(dev, 1, 8), 1); /* ompt_callback_target: never */
  tool.give = 2 * RECORD + 50; /* room for two */
  for (uint64_t i = 1; i <= 5; i++)
    op(3, i);
  assert_int_equal(tool.requests, 3);
  assert_int_equal(tool.completes, 2); /* two full buffers so far */
  assert_int_equal(tool.completed_bytes[0], 2 * RECORD);
  assert_int_equal(stop(dev), 1); /* the fifth record */
  assert_int_equal(tool.completes, 3);
  assert_int_equal(tool.completed_bytes[2], RECORD);
  assert_int_equal(tool.records, 5);
  for (int i = 0; i < 5; i++)
    assert_int_equal(tool.host_ops[i], i + 1);
  op(3, 6); /* stopped */
  assert_int_equal(tool.records, 5);
  assert_int_equal(tool.requests, 3);
}

static void test_small_buffer_goes_back(void **state) {
  (void)state;
  void *dev = ompt_trace_device_handle(5);
  int (*start)(void *, request_fn, complete_fn) = (int (*)(
      void *, request_fn, complete_fn))ompt_trace_lookup("ompt_start_trace");
  int (*flush)(void *) = (int (*)(void *))ompt_trace_lookup("ompt_flush_trace");
  int (*set)(void *, unsigned, unsigned) = (int (*)(void *, unsigned,
      unsigned))ompt_trace_lookup("ompt_set_trace_ompt");
  set(dev, 1, 0);
  assert_int_equal(start(dev, request, complete), 1);
  tool.give = RECORD - 1;
  op(5, 1);
  assert_int_equal(tool.requests, 1);
  assert_int_equal(tool.completes, 1); /* handed back, empty */
  assert_int_equal(tool.completed_bytes[0], 0);
  assert_int_equal(tool.records, 0);
  tool.give = 4 * RECORD;
  op(5, 2);
  assert_int_equal(flush(dev), 1);
  assert_int_equal(tool.records, 1);
  assert_int_equal(tool.host_ops[0], 2);
  ompt_trace_device_finalize(5);
}

static void test_time(void **state) {
  (void)state;
  uint64_t (*now)(void *) =
      (uint64_t(*)(void *))ompt_trace_lookup("ompt_get_device_time");
  double (*translate)(void *, uint64_t) =
      (double (*)(void *, uint64_t))ompt_trace_lookup("ompt_translate_time");
  void *dev = ompt_trace_device_handle(0);
  uint64_t a = now(dev), b = now(dev);
  assert_true(b >= a);
  /* one second of device time is one second of host time */
  double d = translate(dev, a + 1000000000u) - translate(dev, a);
  assert_true(d > 0.999 && d < 1.001);
  assert_null(ompt_trace_lookup("ompt_set_trace_native"));
  assert_null(ompt_trace_lookup(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_buffers_and_cursor, setup),
      cmocka_unit_test_setup(test_small_buffer_goes_back, setup),
      cmocka_unit_test_setup(test_time, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
