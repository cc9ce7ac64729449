/*
 * test_plugin.c - the simdevice plugin's data path, image loading and
 * launches, driven through __tgt_rtl_* on a compiled kernel library.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include "simdev_test.h"
#include "../../simdevice/protocol.h"
#include "../programs/slice.h"

static struct test_image img;
static __tgt_target_table *table;

static int setup(void **state) {
  (void)state;
  use_runtime_or_system_libomp();
  table = plugin_start(&img);
  return table == NULL ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  plugin_stop(&img);
  assert_int_equal(find_server(), -1); /* the process is gone */
  return 0;
}

static void *entry(int i) { return table->EntriesBegin[i].addr; }

static void test_handshake(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_abi_version(), SIMTARGET_PLUGIN_ABI_VERSION);
  assert_int_equal(__tgt_rtl_number_of_devices(), 1);
  assert_int_equal(__tgt_rtl_is_valid_binary(&img.image), 1);
}

static void test_table_follows_host_entries(void **state) {
  (void)state;
  assert_int_equal(table->EntriesEnd - table->EntriesBegin, E_COUNT);
  for (int i = 0; i < E_COUNT; i++) {
    assert_string_equal(table->EntriesBegin[i].name, entry_names[i]);
    if (i == E_MISSING)
      assert_null(table->EntriesBegin[i].addr);
    else
      assert_non_null(table->EntriesBegin[i].addr);
  }
  /* Device addresses are the device process's, not the host's. */
  assert_ptr_not_equal(entry(E_AXPY), &img.host_ids[E_AXPY]);
}

static void test_alloc_submit_retrieve(void **state) {
  (void)state;
  enum { N = 1000 };
  double in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i * 0.5;
  double *d = __tgt_rtl_data_alloc(0, sizeof in, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  assert_true((uint64_t)d >= 0x600000000000ull);
  assert_int_equal(__tgt_rtl_data_submit(0, d, in, sizeof in), OFFLOAD_SUCCESS);
  memset(out, 0, sizeof out);
  assert_int_equal(__tgt_rtl_data_retrieve(0, out, d, sizeof out),
                   OFFLOAD_SUCCESS);
  assert_memory_equal(in, out, sizeof in);
  /* A part in the middle. */
  double part[10] = {0};
  assert_int_equal(__tgt_rtl_data_retrieve(0, part, d + 500, sizeof part),
                   OFFLOAD_SUCCESS);
  assert_memory_equal(part, in + 500, sizeof part);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  /* Freeing twice is refused with the address named. */
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_FAIL);
  char want[64];
  snprintf(want, sizeof want, "%p", (void *)d);
  assert_non_null(strstr(last_error(0).message, want + 2));
}

/* simtarget-replay's entry: a block at a given address, placed as
 * data_alloc would place it there; taken or misplaced addresses refused. */
int32_t __tgt_rtl_simdevice_alloc_at(int32_t id, void *addr, int64_t size);
int32_t __tgt_rtl_simdevice_replay_base(int32_t id, uint64_t base);
static void test_alloc_at_places_a_block_where_asked(void **state) {
  (void)state;
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  char *x = __tgt_rtl_data_alloc(0, 100, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(x);
  char *at = x + 64 * page; /* the same place in its page, far above */
  assert_int_equal(__tgt_rtl_simdevice_alloc_at(0, at, 100), OFFLOAD_SUCCESS);
  char in[100], out[100] = {0};
  for (int i = 0; i < 100; i++)
    in[i] = (char)(i * 3);
  assert_int_equal(__tgt_rtl_data_submit(0, at, in, 100), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_retrieve(0, out, at, 100), OFFLOAD_SUCCESS);
  assert_memory_equal(in, out, 100);
  /* Taken (a live block, at its start or inside), or not where the
   * allocator puts a block of that size. */
  assert_int_equal(__tgt_rtl_simdevice_alloc_at(0, x, 100), OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "not free"));
  assert_int_equal(__tgt_rtl_simdevice_alloc_at(0, at, 100), OFFLOAD_FAIL);
  assert_int_equal(__tgt_rtl_simdevice_alloc_at(0, at + 8 * page + 8, 100),
                   OFFLOAD_FAIL);
  /* Outside device memory. */
  assert_int_equal(__tgt_rtl_simdevice_alloc_at(0, in, 100), OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "outside its memory"));
  /* The recorded base is asked for before init_device, never after. */
  assert_int_equal(__tgt_rtl_simdevice_replay_base(0, 0x700000000000ull),
                   OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "is set up already"));
  /* Later allocations go around it; both free as usual. */
  char *y = __tgt_rtl_data_alloc(0, 200 * page, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(y);
  assert_true(y + 200 * page <= at || y >= at + 100);
  assert_int_equal(__tgt_rtl_data_delete(0, y), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, at), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, x), OFFLOAD_SUCCESS);
}

static void test_device_pointer_is_not_host_memory(void **state) {
  (void)state;
  /* The host holds the device range PROT_NONE: mincore-free check. */
  double *d = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  FILE *maps = fopen("/proc/self/maps", "r");
  assert_non_null(maps);
  char line[512];
  int found_none = 0;
  while (fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
        (uint64_t)d >= lo && (uint64_t)d < hi)
      found_none = strcmp(perms, "---p") == 0;
  }
  fclose(maps);
  assert_true(found_none);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
}

static void test_launch_axpy(void **state) {
  (void)state;
  enum { N = 64 };
  double x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = i;
    y[i] = 1;
  }
  double *dx = __tgt_rtl_data_alloc(0, sizeof x, NULL, TARGET_ALLOC_DEFAULT);
  double *dy = __tgt_rtl_data_alloc(0, sizeof y, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(dx);
  assert_non_null(dy);
  assert_int_equal(__tgt_rtl_data_submit(0, dx, x, sizeof x), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_submit(0, dy, y, sizeof y), OFFLOAD_SUCCESS);
  /* Parameter = args[i] + offsets[i]: pass dy as (dy - 2) + 16 bytes. */
  void *args[4] = {dy - 2, dx, (void *)(uintptr_t)N, (void *)(uintptr_t)3};
  ptrdiff_t offsets[4] = {2 * sizeof(double), 0, 0, 0};
  assert_int_equal(__tgt_rtl_run_target_team_region(0, entry(E_AXPY), args,
                                                    offsets, 4, 2, 8, N),
                   OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_retrieve(0, y, dy, sizeof y), OFFLOAD_SUCCESS);
  for (int i = 0; i < N; i++)
    assert_true(y[i] == 1 + 3.0 * i);
  assert_int_equal(__tgt_rtl_data_delete(0, dx), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, dy), OFFLOAD_SUCCESS);
}

static void test_eight_arguments_reach_the_kernel(void **state) {
  (void)state;
  long *out = __tgt_rtl_data_alloc(0, sizeof(long), NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(out);
  uint64_t vals[9] = {(uint64_t)out, 1, 10, 100, 1000, 10000, 100000,
                      1000000, 10000000};
  assert_int_equal(launch(0, entry(E_SUM_ARGS), 9, vals), OFFLOAD_SUCCESS);
  long got = 0;
  assert_int_equal(__tgt_rtl_data_retrieve(0, &got, out, sizeof got),
                   OFFLOAD_SUCCESS);
  assert_int_equal(got, 11111111);
  assert_int_equal(__tgt_rtl_data_delete(0, out), OFFLOAD_SUCCESS);
}

static void test_run_target_region(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_run_target_region(0, entry(E_EMPTY), NULL, NULL, 0),
                   OFFLOAD_SUCCESS);
}

static void test_bad_launches_are_refused(void **state) {
  (void)state;
  /* Not a kernel: a host address. */
  assert_int_equal(launch(0, &img.host_ids[E_EMPTY], 0, NULL), OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "not a kernel"));
  /* Too many arguments. */
  void *args[300] = {0};
  ptrdiff_t offsets[300] = {0};
  assert_int_equal(__tgt_rtl_run_target_team_region(0, entry(E_EMPTY), args,
                                                    offsets, 300, 0, 0, 0),
                   OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "300 arguments"));
  /* The device still works. */
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
}

static void test_globals_live_in_the_image(void **state) {
  (void)state;
  int g[4] = {0};
  void *dg = entry(E_GVEC);
  assert_int_equal(__tgt_rtl_data_retrieve(0, g, dg, sizeof g), OFFLOAD_SUCCESS);
  assert_int_equal(g[0], 1);
  assert_int_equal(g[3], 4);
  int nv[4] = {5, 6, 7, 8};
  assert_int_equal(__tgt_rtl_data_submit(0, dg, nv, sizeof nv), OFFLOAD_SUCCESS);
  assert_int_equal(launch(0, entry(E_DOUBLE_GVEC), 0, NULL), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_retrieve(0, g, dg, sizeof g), OFFLOAD_SUCCESS);
  assert_int_equal(g[0], 10);
  assert_int_equal(g[3], 16);
  /* Part of a global. */
  int one = 0;
  assert_int_equal(__tgt_rtl_data_retrieve(0, &one, (int *)dg + 2, sizeof one),
                   OFFLOAD_SUCCESS);
  assert_int_equal(one, 14);
  /* Past its end, or an unrelated address: refused, device unharmed. */
  assert_int_equal(__tgt_rtl_data_retrieve(0, g, (int *)dg + 1, sizeof g),
                   OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "declare-target global"));
  assert_int_equal(__tgt_rtl_data_submit(0, (void *)0x1000, nv, 4),
                   OFFLOAD_FAIL);
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
}

static void test_foreign_images_are_rejected(void **state) {
  (void)state;
  unsigned char *copy = malloc(img.size);
  assert_non_null(copy);
  memcpy(copy, img.bytes, img.size);
  __tgt_device_image bad = {copy, copy + img.size, img.entries,
                            img.entries + E_COUNT};
  const unsigned char machine = copy[18]; /* x86-64 or ppc64le: this build's */
  copy[18] = 190; /* e_machine = EM_CUDA */
  copy[19] = 0;
  assert_int_equal(__tgt_rtl_is_valid_binary(&bad), 0);
  assert_non_null(strstr(last_error(0).message, "machine 190"));
  assert_null(__tgt_rtl_load_binary(0, &bad));
  assert_non_null(strstr(last_error(0).message, "machine 190"));
  copy[18] = machine;
  copy[16] = 2; /* e_type = ET_EXEC */
  assert_int_equal(__tgt_rtl_is_valid_binary(&bad), 0);
  assert_non_null(strstr(last_error(0).message, "ET_DYN"));
  copy[0] = 'X';
  assert_int_equal(__tgt_rtl_is_valid_binary(&bad), 0);
  assert_non_null(strstr(last_error(0).message, "not an ELF"));
  bad.ImageEnd = copy + 10; /* truncated */
  copy[0] = 0x7f;
  assert_int_equal(__tgt_rtl_is_valid_binary(&bad), 0);
  assert_int_equal(__tgt_rtl_is_valid_binary(NULL), 0);
  free(copy);
}

/* An OffloadBinary container (clang 15/16) around the same ELF loads. */
static void test_offload_binary_container(void **state) {
  (void)state;
  size_t total = 0x90 + img.size;
  unsigned char *c = calloc(1, total);
  assert_non_null(c);
  uint64_t v;
  memcpy(c, "\x10\xff\x10\xad", 4);
  c[4] = 1;
  v = total; memcpy(c + 0x08, &v, 8);
  v = 0x20; memcpy(c + 0x10, &v, 8);
  v = 0x28; memcpy(c + 0x18, &v, 8);
  c[0x20] = 1; /* IMG_Object */
  c[0x22] = 1; /* OFK_OpenMP */
  v = 0x90; memcpy(c + 0x20 + 0x18, &v, 8);
  v = img.size; memcpy(c + 0x20 + 0x20, &v, 8);
  memcpy(c + 0x90, img.bytes, img.size);
  __tgt_offload_entry entries[1] = {{&img.host_ids[E_EMPTY], "k_empty", 0, 0, 0}};
  __tgt_device_image wrapped = {c, c + total, entries, entries + 1};
  assert_int_equal(__tgt_rtl_is_valid_binary(&wrapped), 1);
  __tgt_target_table *t = __tgt_rtl_load_binary(0, &wrapped);
  assert_non_null(t);
  assert_non_null(t->EntriesBegin[0].addr);
  assert_int_equal(launch(0, t->EntriesBegin[0].addr, 0, NULL), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_unload_binary(0, &wrapped), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_unload_binary(0, &wrapped), OFFLOAD_FAIL);
  /* A container whose image lies outside it. */
  v = total * 2; memcpy(c + 0x20 + 0x20, &v, 8);
  assert_int_equal(__tgt_rtl_is_valid_binary(&wrapped), 0);
  assert_non_null(strstr(last_error(0).message, "outside"));
  free(c);
}

static void test_alloc_kinds_and_sizes(void **state) {
  (void)state;
  /* Host and shared memory: one address that the host can use too. */
  for (int32_t kind = TARGET_ALLOC_HOST; kind <= TARGET_ALLOC_SHARED; kind++) {
    char *both = __tgt_rtl_data_alloc(0, 5000, NULL, kind);
    assert_non_null(both);
    both[0] = 'h';
    both[4999] = 's';
    char back[2];
    assert_int_equal(__tgt_rtl_data_retrieve(0, &back[0], both, 1), OFFLOAD_SUCCESS);
    assert_int_equal(__tgt_rtl_data_retrieve(0, &back[1], both + 4999, 1), OFFLOAD_SUCCESS);
    assert_int_equal(back[0], 'h');
    assert_int_equal(back[1], 's');
    assert_int_equal(__tgt_rtl_data_delete(0, both), OFFLOAD_SUCCESS);
  }
  assert_null(__tgt_rtl_data_alloc(0, 8, NULL, 7));
  assert_non_null(strstr(last_error(0).message, "not supported"));
  assert_null(__tgt_rtl_data_alloc(0, -1, NULL, TARGET_ALLOC_DEVICE));
  void *z = __tgt_rtl_data_alloc(0, 0, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(z);
  assert_int_equal(__tgt_rtl_data_delete(0, z), OFFLOAD_SUCCESS);
  assert_null(__tgt_rtl_data_alloc(5, 8, NULL, TARGET_ALLOC_DEVICE));
  assert_non_null(strstr(last_error(0).message, "device 5 does not exist"));
  assert_int_equal(__tgt_rtl_data_delete(0, (void *)0x1234), OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "not device memory"));
}

static void test_many_allocations(void **state) {
  (void)state;
  enum { N = 20000 };
  void **p = calloc(N, sizeof *p);
  assert_non_null(p);
  for (int i = 0; i < N; i++) {
    p[i] = __tgt_rtl_data_alloc(0, 8 + (i % 7) * 16, NULL, TARGET_ALLOC_DEVICE);
    assert_non_null(p[i]);
    *(int *)&((char *)p)[0] += 0; /* keep p used */
  }
  /* Distinct, and each writable from the host side without overlap. */
  for (int i = 0; i < N; i++)
    assert_int_equal(__tgt_rtl_data_submit(0, p[i], &i, sizeof i),
                     OFFLOAD_SUCCESS);
  for (int i = 0; i < N; i++) {
    int v = -1;
    assert_int_equal(__tgt_rtl_data_retrieve(0, &v, p[i], sizeof v),
                     OFFLOAD_SUCCESS);
    assert_int_equal(v, i);
  }
  for (int i = 0; i < N; i += 2)
    assert_int_equal(__tgt_rtl_data_delete(0, p[i]), OFFLOAD_SUCCESS);
  for (int i = 1; i < N; i += 2)
    assert_int_equal(__tgt_rtl_data_delete(0, p[i]), OFFLOAD_SUCCESS);
  /* Everything coalesced back: one big allocation fits again. */
  void *big = __tgt_rtl_data_alloc(0, 900 << 20, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(big);
  assert_int_equal(__tgt_rtl_data_delete(0, big), OFFLOAD_SUCCESS);
  /* Launch still fine after thousands of protection changes. */
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  free(p);
}

/* Copies that start inside an allocation, among many live ones (found
 * through the ordered index, not a walk): in bounds they work, past the end
 * or inside a freed allocation they are refused. */
static void test_interior_copies(void **state) {
  (void)state;
  enum { N = 3000, LEN = 100 };
  double **p = calloc(N, sizeof *p);
  assert_non_null(p);
  for (int i = 0; i < N; i++) {
    p[i] = __tgt_rtl_data_alloc(0, LEN * sizeof(double), NULL,
                                TARGET_ALLOC_DEVICE);
    assert_non_null(p[i]);
  }
  for (int i = 0; i < N; i++) {
    double v[3] = {i, i + 0.5, -i};
    assert_int_equal(__tgt_rtl_data_submit(0, p[i] + 10 + i % 80, v, sizeof v),
                     OFFLOAD_SUCCESS);
  }
  for (int i = N - 1; i >= 0; i--) {
    double v[3];
    assert_int_equal(
        __tgt_rtl_data_retrieve(0, v, p[i] + 10 + i % 80, sizeof v),
        OFFLOAD_SUCCESS);
    assert_true(v[0] == i && v[1] == i + 0.5 && v[2] == -i);
  }
  double two[2] = {0, 0};
  assert_int_equal(__tgt_rtl_data_submit(0, p[N / 2] + LEN - 1, two, sizeof two),
                   OFFLOAD_FAIL);
  assert_int_equal(__tgt_rtl_data_delete(0, p[N / 2]), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_submit(0, p[N / 2] + 5, two, sizeof(double)),
                   OFFLOAD_FAIL);
  for (int i = 0; i < N; i++)
    if (i != N / 2)
      assert_int_equal(__tgt_rtl_data_delete(0, p[i]), OFFLOAD_SUCCESS);
  free(p);
}

/* The device process starts a server thread for every queue slot at the
 * first asynchronous launch, all at once (creating them during a burst of
 * launches slowed the burst), and none before: a program that never
 * launches asynchronously does not pay for them. */
static void test_queue_threads_start_at_the_first_async_launch(void **state) {
  (void)state;
  pid_t pid = find_server();
  assert_true(pid > 0);
  int before = process_threads(pid);
  assert_true(before > 0 && before < SIMDEV_QUEUE_SLOTS);
  __tgt_async_info info = {0};
  assert_int_equal(__tgt_rtl_run_target_team_region_async(
                       0, entry(E_EMPTY), NULL, NULL, 0, 1, 1, 0, &info),
                   OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_synchronize(0, &info), OFFLOAD_SUCCESS);
  assert_true(process_threads(pid) >= before + SIMDEV_QUEUE_SLOTS);
}

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* OMPT device tracing: time_next_op has the thread's next launch, and only
 * that one, store the device process's start and end of its kernel, which
 * lie between the host's clock reads around the launch (one clock); NULL
 * disarms it; a queued kernel's or copy's times are there once its queue
 * completed. */
static void test_time_next_op(void **state) {
  (void)state;
  uint64_t times[2] = {0, 0}, untouched[2] = {7, 7};
  assert_int_equal(__tgt_rtl_time_next_op(-1, times), OFFLOAD_FAIL);
  assert_int_equal(__tgt_rtl_time_next_op(0, times), OFFLOAD_SUCCESS);
  uint64_t before = mono_ns();
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  uint64_t after = mono_ns();
  assert_true(before <= times[0] && times[0] <= times[1] && times[1] <= after);
  /* disarmed by the launch, and by NULL */
  times[0] = times[1] = 0;
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_time_next_op(0, untouched), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_time_next_op(0, NULL), OFFLOAD_SUCCESS);
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  assert_true(times[0] == 0 && times[1] == 0);
  assert_true(untouched[0] == 7 && untouched[1] == 7);
  /* queued */
  __tgt_async_info info = {0};
  assert_int_equal(__tgt_rtl_time_next_op(0, times), OFFLOAD_SUCCESS);
  before = mono_ns();
  assert_int_equal(__tgt_rtl_run_target_team_region_async(
                       0, entry(E_EMPTY), NULL, NULL, 0, 1, 1, 0, &info),
                   OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_synchronize(0, &info), OFFLOAD_SUCCESS);
  after = mono_ns();
  assert_true(before <= times[0] && times[0] <= times[1] && times[1] <= after);
  /* a queued copy, timed when the queue does it: after the kernel before
   * it in the queue, whose times go to `ktimes` */
  char host[64] = {0};
  void *dev = __tgt_rtl_data_alloc(0, sizeof host, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(dev);
  uint64_t ktimes[2] = {0, 0};
  times[0] = times[1] = 0;
  assert_int_equal(__tgt_rtl_time_next_op(0, ktimes), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_run_target_team_region_async(
                       0, entry(E_EMPTY), NULL, NULL, 0, 1, 1, 0, &info),
                   OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_time_next_op(0, times), OFFLOAD_SUCCESS);
  assert_int_equal(
      __tgt_rtl_data_retrieve_async(0, host, dev, sizeof host, &info),
      OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_synchronize(0, &info), OFFLOAD_SUCCESS);
  assert_true(ktimes[1] != 0 && ktimes[1] <= times[0] && times[0] <= times[1]);
  assert_int_equal(__tgt_rtl_data_delete(0, dev), OFFLOAD_SUCCESS);
}

/* Every thread of the device process, the queue threads started by the
 * test above included, asks for SIMDEVICE_SLICE_US's default, 100 us
 * (server/timeslice.c); the host's threads keep the kernel's slice. */
static void test_device_threads_ask_for_a_short_slice(void **state) {
  (void)state;
#if defined(__powerpc64__)
  skip(); /* the ppc64le build: qemu-user does not pass sched_setattr on */
#endif
  long long host_slice = thread_slice_ns();
  if (host_slice <= 0)
    skip(); /* a kernel that does not report slices */
  assert_int_not_equal(host_slice, 100000);
  pid_t pid = find_server();
  assert_true(pid > 0);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(path);
  assert_non_null(tasks);
  int checked = 0;
  struct dirent *de;
  while ((de = readdir(tasks)) != NULL) {
    if (de->d_name[0] == '.')
      continue;
    assert_int_equal(thread_slice_ns_of((pid_t)atoi(de->d_name)), 100000);
    checked++;
  }
  closedir(tasks);
  assert_true(checked > SIMDEV_QUEUE_SLOTS);
}

/* An asynchronous kernel sees every allocation made before its launch
 * accessible: a few (their protection changes fit the shared log) and
 * then more than the log holds (the rest goes through the main slot). */
static void test_async_kernel_sees_new_allocations(void **state) {
  (void)state;
  enum { MANY = 5000, N = 16 };
  static void *p[MANY];
  for (int round = 0; round < 2; round++) {
    int count = round == 0 ? 4 : MANY;
    for (int i = 0; i < count; i++) {
      p[i] = __tgt_rtl_data_alloc(0, N * sizeof(double), NULL,
                                  TARGET_ALLOC_DEVICE);
      assert_non_null(p[i]);
    }
    __tgt_async_info info = {0};
    void *targets[2] = {p[0], p[count - 1]};
    for (int t = 0; t < 2; t++) {
      void *args[2] = {targets[t], (void *)(uintptr_t)N};
      ptrdiff_t offsets[2] = {0, 0};
      assert_int_equal(__tgt_rtl_run_target_team_region_async(
                           0, entry(E_FILL), args, offsets, 2, 1, 1, 0, &info),
                       OFFLOAD_SUCCESS);
    }
    assert_int_equal(__tgt_rtl_synchronize(0, &info), OFFLOAD_SUCCESS);
    for (int t = 0; t < 2; t++) {
      double got[N];
      assert_int_equal(__tgt_rtl_data_retrieve(0, got, targets[t], sizeof got),
                       OFFLOAD_SUCCESS);
      for (int i = 0; i < N; i++)
        assert_true(got[i] == (double)i);
    }
    for (int i = 0; i < count; i++)
      assert_int_equal(__tgt_rtl_data_delete(0, p[i]), OFFLOAD_SUCCESS);
  }
}

static void test_requires_and_info(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_init_requires(OMP_REQ_NONE), OMP_REQ_NONE);
  assert_int_equal(__tgt_rtl_init_requires(OMP_REQ_REVERSE_OFFLOAD),
                   OMP_REQ_REVERSE_OFFLOAD);
  assert_int_equal(__tgt_rtl_print_device_info(0), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_print_device_info(3), OFFLOAD_FAIL);
}

/* Several host threads use one device at once: transfers, launches and
 * allocations interleave; each thread's results must be its own. */
static void *thread_work(void *arg) {
  long id = (long)arg;
  enum { N = 32 };
  for (int round = 0; round < 200; round++) {
    double *d = __tgt_rtl_data_alloc(0, N * sizeof(double), NULL,
                                     TARGET_ALLOC_DEVICE);
    if (d == NULL)
      return (void *)1;
    uint64_t fill[2] = {(uint64_t)d, N};
    double x[N], y[N];
    for (int i = 0; i < N; i++)
      x[i] = id * 1000 + round;
    if (launch(0, entry(E_FILL), 2, fill) != OFFLOAD_SUCCESS)
      return (void *)2;
    /* y = fill (i) + 1 * x */
    double *dx = __tgt_rtl_data_alloc(0, sizeof x, NULL, TARGET_ALLOC_DEVICE);
    if (dx == NULL || __tgt_rtl_data_submit(0, dx, x, sizeof x) != 0)
      return (void *)3;
    uint64_t axpy[4] = {(uint64_t)d, (uint64_t)dx, N, 1};
    if (launch(0, entry(E_AXPY), 4, axpy) != OFFLOAD_SUCCESS ||
        __tgt_rtl_data_retrieve(0, y, d, sizeof y) != OFFLOAD_SUCCESS)
      return (void *)4;
    for (int i = 0; i < N; i++)
      if (y[i] != i + x[i])
        return (void *)5;
    if (__tgt_rtl_data_delete(0, d) != 0 || __tgt_rtl_data_delete(0, dx) != 0)
      return (void *)6;
  }
  return NULL;
}

static void test_threads_share_a_device(void **state) {
  (void)state;
  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    assert_int_equal(pthread_create(&t[i], NULL, thread_work, (void *)i), 0);
  for (int i = 0; i < 4; i++) {
    void *rc = (void *)-1;
    assert_int_equal(pthread_join(t[i], &rc), 0);
    assert_null(rc);
  }
}

/* unified_shared_memory switches the plugin to the in-process mode for the
 * rest of the process (so this test runs last): device memory is host
 * memory, and a kernel writes a host array through its plain address. */
static void test_unified_shared_memory_runs_in_process(void **state) {
  (void)state;
  int64_t flags = OMP_REQ_UNIFIED_SHARED_MEMORY | OMP_REQ_REVERSE_OFFLOAD;
  assert_int_equal(__tgt_rtl_init_requires(flags), flags);
  assert_int_equal(__tgt_rtl_init_device(0), OFFLOAD_SUCCESS);
  enum { N = 32 };
  double host[N];
  memset(host, 0, sizeof host);
  /* A mapping uses the host object itself; close/routines get own memory. */
  assert_ptr_equal(__tgt_rtl_data_alloc(0, sizeof host, host,
                                        TARGET_ALLOC_DEFAULT), host);
  double *own = __tgt_rtl_data_alloc(0, sizeof host, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(own);
  own[0] = 1.5; /* host-accessible */
  assert_int_equal(__tgt_rtl_data_retrieve(0, host, own, sizeof(double)),
                   OFFLOAD_SUCCESS);
  assert_true(host[0] == 1.5);
  __tgt_target_table *t = __tgt_rtl_load_binary(0, &img.image);
  assert_non_null(t);
  /* The image is loaded in this process, not in the server. */
  Dl_info info;
  assert_int_not_equal(dladdr(t->EntriesBegin[E_FILL].addr, &info), 0);
  uint64_t fill[2] = {(uint64_t)host, N};
  assert_int_equal(launch(0, t->EntriesBegin[E_FILL].addr, 2, fill),
                   OFFLOAD_SUCCESS);
  for (int i = 0; i < N; i++)
    assert_true(host[i] == (double)i);
  assert_int_equal(launch(0, host, 0, NULL), OFFLOAD_FAIL); /* no kernel */
  assert_int_equal(__tgt_rtl_data_delete(0, host), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, own), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_unload_binary(0, &img.image), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_print_device_info(0), OFFLOAD_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_handshake),
      cmocka_unit_test(test_table_follows_host_entries),
      cmocka_unit_test(test_alloc_submit_retrieve),
      cmocka_unit_test(test_alloc_at_places_a_block_where_asked),
      cmocka_unit_test(test_device_pointer_is_not_host_memory),
      cmocka_unit_test(test_launch_axpy),
      cmocka_unit_test(test_eight_arguments_reach_the_kernel),
      cmocka_unit_test(test_run_target_region),
      cmocka_unit_test(test_bad_launches_are_refused),
      cmocka_unit_test(test_globals_live_in_the_image),
      cmocka_unit_test(test_foreign_images_are_rejected),
      cmocka_unit_test(test_offload_binary_container),
      cmocka_unit_test(test_alloc_kinds_and_sizes),
      cmocka_unit_test(test_many_allocations),
      cmocka_unit_test(test_interior_copies),
      cmocka_unit_test(test_queue_threads_start_at_the_first_async_launch),
      cmocka_unit_test(test_device_threads_ask_for_a_short_slice),
      cmocka_unit_test(test_async_kernel_sees_new_allocations),
      cmocka_unit_test(test_time_next_op),
      cmocka_unit_test(test_requires_and_info),
      cmocka_unit_test(test_threads_share_a_device),
      cmocka_unit_test(test_unified_shared_memory_runs_in_process),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
