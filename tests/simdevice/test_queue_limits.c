/*
 * test_queue_limits.c - asynchronous kernels on a device process that cannot
 * start a server thread for every queue slot. The device process runs under
 * `prlimit` (SIMDEVICE_WRAPPER): 64 MiB thread stacks in a 4 GiB address
 * space leave room for a few dozen threads, not 256. Every kernel must
 * still run (queues wait for a slot that has a thread), the server must say
 * how many it started, and a sync launch must be unaffected.
 */
#include "simdev_test.h"
#include "../../simdevice/protocol.h"

static struct test_image img;
static __tgt_target_table *table;
static char stderr_log[] = "/tmp/simdev_queue_limits_XXXXXX";

static int setup(void **state) {
  (void)state;
  use_runtime_or_system_libomp();
  setenv("SIMDEVICE_MEMORY", "64M", 1);
  setenv("SIMDEVICE_WRAPPER", "prlimit --as=4294967296 --stack=67108864", 1);
  /* The device process writes its notices to the stderr it inherits when
   * init_device starts it (plugin_start); ours is restored at once for
   * cmocka. */
  int fd = mkstemp(stderr_log);
  if (fd < 0)
    return -1;
  fflush(stderr);
  int saved_stderr = dup(2);
  dup2(fd, 2);
  close(fd);
  table = plugin_start(&img);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  return table == NULL || find_server() < 0 ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  plugin_stop(&img);
  unlink(stderr_log);
  return 0;
}

static void *entry(int i) { return table->EntriesBegin[i].addr; }

/* More kernels in flight than the process has slot threads, each on its own
 * queue: all run, with their own results. */
static void test_all_kernels_run_on_fewer_threads(void **state) {
  (void)state;
  enum { KERNELS = 300, N = 8 };
  static double *dev[KERNELS];
  static __tgt_async_info info[KERNELS];
  for (int k = 0; k < KERNELS; k++) {
    dev[k] = __tgt_rtl_data_alloc(0, N * sizeof(double), NULL,
                                  TARGET_ALLOC_DEVICE);
    assert_non_null(dev[k]);
    void *args[2] = {dev[k], (void *)(uintptr_t)N};
    ptrdiff_t offsets[2] = {0, 0};
    assert_int_equal(__tgt_rtl_run_target_team_region_async(
                         0, entry(E_FILL), args, offsets, 2, 1, 1, 0, &info[k]),
                     OFFLOAD_SUCCESS);
  }
  for (int k = 0; k < KERNELS; k++)
    assert_int_equal(__tgt_rtl_synchronize(0, &info[k]), OFFLOAD_SUCCESS);
  for (int k = 0; k < KERNELS; k++) {
    double got[N];
    assert_int_equal(__tgt_rtl_data_retrieve(0, got, dev[k], sizeof got),
                     OFFLOAD_SUCCESS);
    for (int i = 0; i < N; i++)
      assert_true(got[i] == (double)i);
    assert_int_equal(__tgt_rtl_data_delete(0, dev[k]), OFFLOAD_SUCCESS);
  }
  /* The limit did bite: fewer slot threads than slots, but some. */
  int threads = process_threads(find_server());
  assert_true(threads > 1 && threads < SIMDEV_QUEUE_SLOTS + 1);
}

/* The server said how many slot threads it started, and why not all. */
static void test_the_shortfall_is_reported(void **state) {
  (void)state;
  size_t size = 0;
  unsigned char *log = read_file(stderr_log, &size);
  assert_non_null(log);
  char *text = calloc(size + 1, 1); /* read_file does not end it with NUL */
  assert_non_null(text);
  memcpy(text, log, size);
  free(log);
  const char *line = strstr(text, "queue slot threads");
  if (line == NULL)
    fprintf(stdout, "device stderr:\n%s\n", text);
  assert_non_null(line);
  int started = 0, asked = 0;
  const char *at = strstr(text, "started ");
  assert_non_null(at);
  assert_int_equal(sscanf(at, "started %d of %d", &started, &asked), 2);
  assert_int_equal(asked, SIMDEV_QUEUE_SLOTS);
  assert_true(started > 0 && started < SIMDEV_QUEUE_SLOTS);
  assert_non_null(strstr(text, "asynchronous kernels run at once"));
  free(text);
}

/* Synchronous launches do not need the queue threads. */
static void test_sync_launches_still_work(void **state) {
  (void)state;
  enum { N = 16 };
  double *d = __tgt_rtl_data_alloc(0, N * sizeof(double), NULL,
                                   TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  uint64_t fill[2] = {(uint64_t)d, N};
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
  double got[N];
  assert_int_equal(__tgt_rtl_data_retrieve(0, got, d, sizeof got),
                   OFFLOAD_SUCCESS);
  assert_true(got[N - 1] == (double)(N - 1));
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_all_kernels_run_on_fewer_threads),
      cmocka_unit_test(test_the_shortfall_is_reported),
      cmocka_unit_test(test_sync_launches_still_work),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
