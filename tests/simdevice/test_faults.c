/*
 * test_faults.c - what simdevice does when device code goes wrong: a kernel
 * that touches host memory, a guard page after an allocation, a kernel that
 * exits, a device process killed from outside. The host must survive, get
 * the cause, and the device must come back on its next use with its memory.
 */
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "simdev_test.h"

static struct test_image img;
static __tgt_target_table *table;

static int setup(void **state) {
  (void)state;
  use_runtime_or_system_libomp();
  use_hooks_server(); /* two tests use its hooks */
  table = plugin_start(&img);
  return table == NULL ? -1 : 0;
}

static int teardown(void **state) {
  (void)state;
  plugin_stop(&img);
  return 0;
}

static void *entry(int i) { return table->EntriesBegin[i].addr; }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void test_kernel_reading_host_memory_is_reported(void **state) {
  (void)state;
  /* Device memory written before the fault must survive the restart. */
  long keep = 4242;
  long *dkeep = __tgt_rtl_data_alloc(0, sizeof keep, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(dkeep);
  assert_int_equal(__tgt_rtl_data_submit(0, dkeep, &keep, sizeof keep),
                   OFFLOAD_SUCCESS);
  pid_t before = find_server();
  assert_true(before > 0);

  double host_value = 1.0; /* a host stack address: not mapped */
  uint64_t arg = (uint64_t)&host_value;
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_FAIL);
  __tgt_rtl_error err = last_error(0);
  char want[128];
  snprintf(want, sizeof want, "kernel `k_read` read address %p (not device memory)",
           (void *)&host_value);
  assert_non_null(strstr(err.message, want));
  assert_true(err.fault_addr == (uint64_t)&host_value);
  assert_int_equal(err.fault_kind, 1);
  assert_int_equal(err.device_lost, 1);

  /* Next use restarts the device; memory and kernel addresses kept. */
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  pid_t after = find_server();
  assert_true(after > 0 && after != before);
  long got = 0;
  assert_int_equal(__tgt_rtl_data_retrieve(0, &got, dkeep, sizeof got),
                   OFFLOAD_SUCCESS);
  assert_int_equal(got, 4242);
  /* The restarted device runs real work on the surviving memory. */
  uint64_t fill[2] = {(uint64_t)dkeep, 1};
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, dkeep), OFFLOAD_SUCCESS);
}

/* A kernel faults on a queue slot's thread while the main server thread
 * loads and unloads another image, which rebuilds the table of entry names
 * the fault handler reads: the report still names the kernel. */
static void test_queue_fault_while_images_change(void **state) {
  (void)state;
  __tgt_device_image other = img.image; /* a second copy of the library */
  void *args[2] = {(void *)64, (void *)150L}; /* the null page: unmapped */
  ptrdiff_t offsets[2] = {0, 0};
  __tgt_async_info info = {0};
  assert_int_equal(__tgt_rtl_run_target_team_region_async(
                       0, entry(E_WAIT_READ), args, offsets, 2, 1, 1, 0, &info),
                   OFFLOAD_SUCCESS);
  int loaded = 0, cycles = 0;
  double until = now() + 5.0;
  while (now() < until) {
    if (!loaded && __tgt_rtl_load_binary(0, &other) == NULL)
      break; /* the fault ended the process under the command */
    loaded = 1;
    if (__tgt_rtl_unload_binary(0, &other) != OFFLOAD_SUCCESS)
      break;
    loaded = 0;
    cycles++;
  }
  assert_true(cycles > 0);
  assert_int_equal(__tgt_rtl_synchronize(0, &info), OFFLOAD_FAIL);
  __tgt_rtl_error err = last_error(0);
  assert_non_null(strstr(err.message, "kernel `k_wait_read` read address 0x40"));
  assert_int_equal(err.device_lost, 1);
  if (loaded) /* it died under the unload: the plugin may have let go of it */
    (void)__tgt_rtl_unload_binary(0, &other);
  /* The device comes back for the next test. */
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
}

static void test_guard_page_catches_one_element_short(void **state) {
  (void)state;
  enum { N = 100 };
  /* Allocated one double short of what the kernel writes. */
  double *d = __tgt_rtl_data_alloc(0, (N - 1) * sizeof(double), NULL,
                                   TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  uint64_t ok_args[2] = {(uint64_t)d, N - 1};
  assert_int_equal(launch(0, entry(E_FILL), 2, ok_args), OFFLOAD_SUCCESS);
  uint64_t bad_args[2] = {(uint64_t)d, N};
  assert_int_equal(launch(0, entry(E_FILL), 2, bad_args), OFFLOAD_FAIL);
  __tgt_rtl_error err = last_error(0);
  assert_true(err.fault_addr == (uint64_t)(d + N - 1));
  assert_int_equal(err.fault_kind, 2);
  char want[160];
  snprintf(want, sizeof want,
           "kernel `k_fill` wrote address %p (0 bytes past the end of the "
           "792-byte device allocation at %p)",
           (void *)(d + N - 1), (void *)d);
  assert_non_null(strstr(err.message, want));
  /* The elements written before the fault are in device memory. */
  double got[N - 1];
  assert_int_equal(__tgt_rtl_data_retrieve(0, got, d, sizeof got),
                   OFFLOAD_SUCCESS);
  assert_true(got[N - 2] == N - 2);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
}

/* A kernel reading the freed 64-byte allocation at `freed` faults, and the
 * fault names it. */
static void assert_read_of_freed_reported(void *freed) {
  uint64_t arg = (uint64_t)freed;
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_FAIL);
  char want[128];
  snprintf(want, sizeof want,
           "freed device memory (the 64-byte device allocation at %p", freed);
  assert_non_null(strstr(last_error(0).message, want));
}

static void test_freed_memory_faults(void **state) {
  (void)state;
  double *d = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  uint64_t arg = (uint64_t)d;
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  /* A new allocation does not reuse the freed block at once (quarantine):
   * a kernel reading through a kept pointer faults instead of reading it. */
  double *other = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(other);
  assert_true(other != d);
  assert_read_of_freed_reported(d);
  assert_int_equal(__tgt_rtl_data_delete(0, other), OFFLOAD_SUCCESS);
}

/* A new mapping of the same host object (data_alloc's hst_ptr) with the
 * same number of pages takes the object's freed block back from the
 * quarantine, accessible again and still ending at its guard page; another
 * object, another size or an allocation without a host object never gets
 * it, so a kernel reading through a kept pointer still faults. */
static void test_freed_block_goes_back_to_its_host_object(void **state) {
  (void)state;
  double x[8], y[8], z[8];
  double *d = __tgt_rtl_data_alloc(0, sizeof x, x, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  uint64_t arg = (uint64_t)d;
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  double *other = __tgt_rtl_data_alloc(0, sizeof y, y, TARGET_ALLOC_DEFAULT);
  double *distinct = __tgt_rtl_data_alloc(0, sizeof x, NULL, TARGET_ALLOC_DEVICE);
  double *bigger = __tgt_rtl_data_alloc(0, 2 * 4096, x, TARGET_ALLOC_DEFAULT);
  assert_non_null(other);
  assert_non_null(distinct);
  assert_non_null(bigger);
  assert_true(other != d && distinct != d && bigger != d);
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_FAIL);
  char want[128];
  snprintf(want, sizeof want,
           "freed device memory (the 64-byte device allocation at %p",
           (void *)d);
  assert_non_null(strstr(last_error(0).message, want));
  /* The next copy of x: x's block again, readable and writable. */
  double *again = __tgt_rtl_data_alloc(0, sizeof x, x, TARGET_ALLOC_DEFAULT);
  assert_ptr_equal(again, d);
  uint64_t fill[2] = {(uint64_t)again, 8};
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_retrieve(0, z, again, sizeof z),
                   OFFLOAD_SUCCESS);
  assert_true(z[7] == 7);
  fill[1] = 9;
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_FAIL);
  assert_true(last_error(0).fault_addr == (uint64_t)(again + 8));
  /* Freed and taken back between two launches (its two changes cancel in
   * the queue): accessible at the next launch. */
  assert_int_equal(__tgt_rtl_data_delete(0, again), OFFLOAD_SUCCESS);
  again = __tgt_rtl_data_alloc(0, sizeof x - 8, x, TARGET_ALLOC_DEFAULT);
  assert_ptr_equal(again, d + 1); /* 7 doubles, ending at the guard page */
  fill[0] = (uint64_t)again;
  fill[1] = 7;
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, again), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, other), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, distinct), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, bigger), OFFLOAD_SUCCESS);
}

/* A freed block larger than the memory the quarantine keeps (64 MiB) does
 * not push the smaller freed blocks out: a kernel reading one of them
 * through a kept pointer still faults on freed memory. */
static void test_huge_free_keeps_the_quarantine(void **state) {
  (void)state;
  double *d = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  uint64_t arg = (uint64_t)d;
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  void *huge = __tgt_rtl_data_alloc(0, 65 << 20, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(huge);
  assert_int_equal(__tgt_rtl_data_delete(0, huge), OFFLOAD_SUCCESS);
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_FAIL);
  char want[128];
  snprintf(want, sizeof want,
           "freed device memory (the 64-byte device allocation at %p",
           (void *)d);
  assert_non_null(strstr(last_error(0).message, want));
}

/* A freed block of 64 MiB of data (a power-of-two temporary, its guard page
 * beyond) keeps its memory in the quarantine, which keeps 64 MiB: the next
 * mapping of the same host object takes it back with its pages (the old
 * copy still there), instead of faulting 16384 new pages in (a hole was
 * punched, and the block read as zeros). */
static void test_freed_64mib_block_keeps_its_memory(void **state) {
  (void)state;
  static char object;
  const size_t size = 64 << 20, n = size / sizeof(double);
  double *d = __tgt_rtl_data_alloc(0, size, &object, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  uint64_t fill[2] = {(uint64_t)d, n};
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  double *again = __tgt_rtl_data_alloc(0, size, &object, TARGET_ALLOC_DEFAULT);
  assert_ptr_equal(again, d);
  double last = 0;
  assert_int_equal(
      __tgt_rtl_data_retrieve(0, &last, again + n - 1, sizeof last),
      OFFLOAD_SUCCESS);
  if (last != (double)(n - 1))
    fail_msg("the last double of the block taken back reads %g, not %g: "
             "its memory was given back at the free", last, (double)(n - 1));
  assert_int_equal(__tgt_rtl_data_delete(0, again), OFFLOAD_SUCCESS);
}

/* A kept pointer into a freed block faults whatever the block's size (issue
 * 30, item 13: from 64 MiB on, the next allocation of the same size got
 * the freed block and the kernel read another object's data): a large
 * freed block keeps its address range, not its memory. */
static void test_large_freed_block_faults(void **state) {
  (void)state;
  static const size_t sizes[] = {63 << 20, 64 << 20, 200 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    double *d = __tgt_rtl_data_alloc(0, sizes[i], NULL, TARGET_ALLOC_DEVICE);
    assert_non_null(d);
    uint64_t fill[2] = {(uint64_t)d, 1024};
    assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
    assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
    double *other =
        __tgt_rtl_data_alloc(0, sizes[i], NULL, TARGET_ALLOC_DEVICE);
    assert_non_null(other);
    fill[0] = (uint64_t)other;
    assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
    uint64_t arg = (uint64_t)d;
    assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_FAIL);
    char want[128];
    snprintf(want, sizeof want,
             "freed device memory (the %zu-byte device allocation at %p",
             sizes[i], (void *)d);
    if (!strstr(last_error(0).message, want))
      fail_msg("%zu bytes: no \"%s\" in: %s", sizes[i], want,
               last_error(0).message);
    assert_int_equal(__tgt_rtl_data_delete(0, other), OFFLOAD_SUCCESS);
  }
}

/* Bytes of device memory resident now: the blocks of the device memory
 * memfd, through this process's descriptor of it. */
static long long device_memory_resident(void) {
  DIR *dir = opendir("/proc/self/fd");
  assert_non_null(dir);
  long long bytes = -1;
  for (struct dirent *e; (e = readdir(dir)) != NULL && bytes < 0;) {
    char path[300], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
      continue;
    target[n] = '\0';
    struct stat st;
    if (strncmp(target, "/memfd:simdevice-memory", 23) == 0 &&
        stat(path, &st) == 0)
      bytes = (long long)st.st_blocks * 512;
  }
  closedir(dir);
  assert_true(bytes >= 0);
  return bytes;
}

/* Freed device memory goes back to the system (issue 30, item 14: 512 MiB
 * stayed resident after unmap and free until exit): a quarantined block
 * larger than the memory the quarantine keeps gives it back at once. */
static void test_freed_memory_is_given_back(void **state) {
  (void)state;
  const size_t size = 512 << 20;
  long long before = device_memory_resident();
  double *d = __tgt_rtl_data_alloc(0, size, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  uint64_t fill[2] = {(uint64_t)d, size / sizeof(double)};
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
  long long filled = device_memory_resident();
  assert_true(filled - before >= (long long)size);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  long long after = device_memory_resident();
  if (after - before > (64ll << 20))
    fail_msg("%lld MiB still resident after the free of 512 MiB (%lld MiB "
             "before the allocation)", after >> 20, before >> 20);
}

/* A host address that lies in device memory (a device pointer passed as a
 * host one) is refused by the copy, never read or written on the host. */
static void test_host_address_in_device_memory_is_refused(void **state) {
  (void)state;
  long *d = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  long *e = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  assert_non_null(e);
  assert_int_equal(__tgt_rtl_data_submit(0, e, d, 8), OFFLOAD_FAIL);
  char want[160];
  snprintf(want, sizeof want,
           "data_submit of 8 bytes: the host address %p is device memory of "
           "device 0, which the host cannot read",
           (void *)d);
  assert_non_null(strstr(last_error(0).message, want));
  assert_int_equal(__tgt_rtl_data_retrieve(0, d, e, 8), OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "which the host cannot write"));
  /* Shared memory lies in the device range too, but is host memory. */
  long *sh = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_SHARED);
  assert_non_null(sh);
  sh[0] = 77;
  assert_int_equal(__tgt_rtl_data_submit(0, e, sh, 8), OFFLOAD_SUCCESS);
  sh[0] = 0;
  assert_int_equal(__tgt_rtl_data_retrieve(0, sh, e, 8), OFFLOAD_SUCCESS);
  assert_int_equal(sh[0], 77);
  assert_int_equal(__tgt_rtl_data_delete(0, sh), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_data_delete(0, e), OFFLOAD_SUCCESS);
}

/* Memory allocated and freed between two commands never became accessible
 * in the device process (the two protection changes cancel): a kernel that
 * reads it still faults. */
static void test_memory_freed_before_any_launch_faults(void **state) {
  (void)state;
  double *d = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  uint64_t arg = (uint64_t)d;
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_FAIL);
  assert_non_null(strstr(last_error(0).message, "freed device memory"));
}

/* Memory freed and allocated again between two launches (a new block while
 * the freed one is in quarantine) is writable, and its guard page still
 * catches the element past the end; with another size, the new extent is
 * what the kernel may touch. */
static void test_reallocated_memory_keeps_its_guard(void **state) {
  (void)state;
  enum { N = 100 };
  double *d = __tgt_rtl_data_alloc(0, (N - 1) * sizeof(double), NULL,
                                   TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  uint64_t ok_args[2] = {(uint64_t)d, N - 1};
  assert_int_equal(launch(0, entry(E_FILL), 2, ok_args), OFFLOAD_SUCCESS);
  for (int round = 0; round < 3; round++) {
    assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
    d = __tgt_rtl_data_alloc(0, (N - 1) * sizeof(double), NULL,
                             TARGET_ALLOC_DEVICE);
    assert_non_null(d);
    ok_args[0] = (uint64_t)d;
    assert_int_equal(launch(0, entry(E_FILL), 2, ok_args), OFFLOAD_SUCCESS);
  }
  uint64_t bad_args[2] = {(uint64_t)d, N};
  assert_int_equal(launch(0, entry(E_FILL), 2, bad_args), OFFLOAD_FAIL);
  assert_true(last_error(0).fault_addr == (uint64_t)(d + N - 1));
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  /* A small block freed, then three pages: all of them writable, the page
   * after them not. */
  double *small = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(small);
  assert_int_equal(__tgt_rtl_data_delete(0, small), OFFLOAD_SUCCESS);
  enum { BIG = 3 * 4096 / sizeof(double) };
  double *big = __tgt_rtl_data_alloc(0, BIG * sizeof(double), NULL,
                                     TARGET_ALLOC_DEVICE);
  assert_non_null(big);
  uint64_t big_args[2] = {(uint64_t)big, BIG};
  assert_int_equal(launch(0, entry(E_FILL), 2, big_args), OFFLOAD_SUCCESS);
  big_args[1] = BIG + 1;
  assert_int_equal(launch(0, entry(E_FILL), 2, big_args), OFFLOAD_FAIL);
  assert_true(last_error(0).fault_addr == (uint64_t)(big + BIG));
  assert_int_equal(__tgt_rtl_data_delete(0, big), OFFLOAD_SUCCESS);
}

/* Ends device 0's process (a kernel that exits) and starts the next, which
 * reads the environment as it is now. */
static void restart_device(void) {
  uint64_t code = 1;
  assert_int_equal(launch(0, entry(E_EXIT), 1, &code), OFFLOAD_FAIL);
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
}

static int max_map_count(void) {
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  int n = -1;
  if (f != NULL && fscanf(f, "%d", &n) != 1)
    n = -1;
  if (f != NULL)
    fclose(f);
  return n;
}

/* More live guarded objects than two memory mappings each allow under
 * vm.max_map_count (65530 by default) with mprotect. */
enum { MANY_OBJECTS = 40000 };

static void **alloc_many(void) {
  void **p = calloc(MANY_OBJECTS, sizeof *p);
  assert_non_null(p);
  for (int i = 0; i < MANY_OBJECTS; i++)
    assert_non_null(p[i] = __tgt_rtl_data_alloc(0, 64, NULL,
                                                  TARGET_ALLOC_DEVICE));
  return p;
}

static void free_many(void **p) {
  for (int i = 0; i < MANY_OBJECTS; i++)
    if (p[i] != NULL)
      assert_int_equal(__tgt_rtl_data_delete(0, p[i]), OFFLOAD_SUCCESS);
  free(p);
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
}

/* After a launch applied them: the process guards with guard regions, still
 * (not turned off), and device memory is at most two memory mappings (the
 * read-write part with the markers, the PROT_NONE rest), not one or two
 * per object. */
static void assert_guarded_by_guard_regions(const struct simdev_control *ctl) {
  assert_int_equal(ctl->guard_mode, SIMDEV_GUARD_REGIONS);
  assert_int_equal(ctl->guards_disabled, 0);
  int mappings = mappings_within(find_server(), ctl->dev_base, ctl->capacity);
  assert_true(mappings >= 1 && mappings <= 2);
}

/* Whether guard regions work on shared memory for this process (the test's
 * own probe, so that a server that fails to find them where they work is a
 * failure, not a skip): a guarded page of a memfd mapping cannot be read. */
static int guard_regions_work_here(void) {
  long page = sysconf(_SC_PAGESIZE);
  int fd = memfd_create("guard-probe", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, page) != 0) {
    if (fd >= 0)
      close(fd);
    return 0;
  }
  char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return 0;
  char byte;
  struct iovec local = {.iov_base = &byte, .iov_len = 1};
  struct iovec remote = {.iov_base = p, .iov_len = 1};
  /* Unreadable with the marker, readable again without it (an emulator
   * may ignore the advice, or fail every read). */
  int works = madvise(p, (size_t)page, 102 /* MADV_GUARD_INSTALL */) == 0 &&
              process_vm_readv(getpid(), &local, 1, &remote, 1, 0) < 0 &&
              errno == EFAULT &&
              madvise(p, (size_t)page, 103 /* MADV_GUARD_REMOVE */) == 0 &&
              process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
  munmap(p, (size_t)page);
  return works;
}

/* With the device restarted after the last fault and still guarded by
 * guard regions, kernel `kernel` (args) touches the double right after the
 * 64-byte object at `object`, and the fault names it (`kind`: 1 read, 2
 * write). */
static void assert_overrun_reported(const struct simdev_control *ctl,
                                    int kernel, uint64_t *args, int nargs,
                                    double *object, int kind,
                                    const char *name, const char *verb) {
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  assert_guarded_by_guard_regions(ctl);
  assert_int_equal(launch(0, entry(kernel), nargs, args), OFFLOAD_FAIL);
  __tgt_rtl_error err = last_error(0);
  assert_true(err.fault_addr == (uint64_t)(object + 8));
  assert_int_equal(err.fault_kind, kind);
  char want[200];
  snprintf(want, sizeof want,
           "kernel `%s` %s address %p (0 bytes past the end of the 64-byte "
           "device allocation at %p)",
           name, verb, (void *)(object + 8), (void *)object);
  assert_non_null(strstr(err.message, want));
}

/* Linux guard regions (6.15+ on shared memory; not under qemu-user, which
 * ignores the advice): 40000 live guarded objects keep their guard pages.
 * A free, a write past the last object and a read past one in the middle
 * fault as they would with one object; each fault ends the process, and
 * the next one (the restart puts back the protections of every live
 * object) guards them again. */
static void test_guard_regions_need_no_mapping_per_object(void **state) {
  (void)state;
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  const struct simdev_control *ctl = control_area(0);
  assert_non_null(ctl);
  if (!guard_regions_work_here()) {
    assert_int_equal(ctl->guard_mode, SIMDEV_GUARD_MPROTECT);
    printf("guard regions do not work here: skipped\n");
    skip();
  }
  void **p = alloc_many();
  double *mid = p[MANY_OBJECTS / 2], *last = p[MANY_OBJECTS - 1];
  /* The middle object is readable and writable, its neighbour too. */
  uint64_t fill[2] = {(uint64_t)mid, 8};
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
  assert_guarded_by_guard_regions(ctl);
  double *freed = p[MANY_OBJECTS / 2 - 1];
  uint64_t arg = (uint64_t)freed;
  assert_int_equal(launch(0, entry(E_READ), 1, &arg), OFFLOAD_SUCCESS);

  /* Freed while the process runs: its marker comes back. */
  assert_int_equal(__tgt_rtl_data_delete(0, freed), OFFLOAD_SUCCESS);
  p[MANY_OBJECTS / 2 - 1] = NULL;
  assert_read_of_freed_reported(freed);

  /* One double past the end of the last object (a write), then of the
   * middle one (a read). */
  fill[0] = (uint64_t)last;
  fill[1] = 9;
  assert_overrun_reported(ctl, E_FILL, fill, 2, last, 2, "k_fill", "wrote");
  arg = (uint64_t)(mid + 8);
  assert_overrun_reported(ctl, E_READ, &arg, 1, mid, 1, "k_read", "read");
  /* The data written before the faults is still there. */
  double got[8];
  assert_int_equal(__tgt_rtl_data_retrieve(0, got, mid, sizeof got),
                   OFFLOAD_SUCCESS);
  assert_true(got[7] == 7);
  free_many(p);
}

/* The mprotect scheme (older kernels, qemu-user), here too through the
 * server's test hook: it guards, and past vm.max_map_count it turns the
 * guards off and leaves every object usable. */
static void test_mprotect_guards_until_the_mapping_limit(void **state) {
  (void)state;
  assert_int_equal(setenv("SIMDEVICE_TEST_GUARD_MPROTECT", "1", 1), 0);
  restart_device();
  const struct simdev_control *ctl = control_area(0);
  assert_non_null(ctl);
  assert_int_equal(ctl->guard_mode, SIMDEV_GUARD_MPROTECT);
  double *d = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(d);
  uint64_t fill[2] = {(uint64_t)d, 9};
  assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_FAIL);
  assert_true(last_error(0).fault_addr == (uint64_t)(d + 8));
  assert_int_equal(__tgt_rtl_data_delete(0, d), OFFLOAD_SUCCESS);
  int limit = max_map_count();
  if (limit > 0 && limit / 2 < MANY_OBJECTS) {
    void **p = alloc_many();
    assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
    assert_int_equal(ctl->guard_mode, SIMDEV_GUARD_MPROTECT);
    assert_int_equal(ctl->guards_disabled, 1);
    /* Unguarded: all accessible, the page after the last object too. */
    double *last = p[MANY_OBJECTS - 1];
    fill[0] = (uint64_t)last;
    assert_int_equal(launch(0, entry(E_FILL), 2, fill), OFFLOAD_SUCCESS);
    free_many(p);
  } else {
    printf("vm.max_map_count %d: 40000 objects fit, no fallback to see\n",
           limit);
  }
  unsetenv("SIMDEVICE_TEST_GUARD_MPROTECT");
  restart_device();
}

static void test_kernel_exit_is_reported(void **state) {
  (void)state;
  uint64_t code = 3;
  assert_int_equal(launch(0, entry(E_EXIT), 1, &code), OFFLOAD_FAIL);
  __tgt_rtl_error err = last_error(0);
  assert_non_null(strstr(err.message, "exited with status 3 during kernel `k_exit`"));
  assert_int_equal(err.device_lost, 1);
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
}

/* A device killed while idle is found before the next command is sent:
 * that command is not blamed, the device restarts at once and the command
 * runs (issue 15, item 8; the message is on stderr). The test waits until
 * the process is gone, so the outcome does not depend on timing. */
static void test_killed_idle_device_restarts(void **state) {
  (void)state;
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  pid_t pid = find_server();
  assert_true(pid > 0);
  assert_int_equal(kill(pid, SIGKILL), 0);
  for (int i = 0; i < 200 && kill(pid, 0) == 0; i++)
    usleep(10000);
  assert_int_not_equal(kill(pid, 0), 0);
  double t0 = now();
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  double waited = now() - t0;
  assert_true(waited < 1.0);
  pid_t restarted = find_server();
  assert_true(restarted > 0 && restarted != pid);
  /* Globals come back with the image (reset to their initial values). */
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  int g[4] = {0};
  assert_int_equal(__tgt_rtl_data_retrieve(0, g, entry(E_GVEC), sizeof g),
                   OFFLOAD_SUCCESS);
  assert_int_equal(g[1], 2);
  printf("restarted after kill -9 in %.3f s\n", waited);
}

/* A device process is gone (its pid reaped) a moment before its supervisor
 * records how it ended in the control area. A restart in that moment must
 * wait for the record: else it lands in the new process's control area,
 * and that process seems to die idle (with the old status) while it runs
 * on. The supervisor's test hook makes the moment 400 ms long. */
static void test_late_supervisor_record_spares_next_process(void **state) {
  (void)state;
  assert_int_equal(setenv("SIMDEVICE_TEST_SUPERVISOR_LATE_MS", "400", 1), 0);
  uint64_t code = 1; /* a restart under a supervisor with the hook */
  assert_int_equal(launch(0, entry(E_EXIT), 1, &code), OFFLOAD_FAIL);
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  unsetenv("SIMDEVICE_TEST_SUPERVISOR_LATE_MS");
  pid_t pid = find_server();
  assert_true(pid > 0);
  assert_int_equal(kill(pid, SIGKILL), 0);
  for (int i = 0; i < 200 && kill(pid, 0) == 0; i++)
    usleep(10000);
  assert_int_not_equal(kill(pid, 0), 0); /* reaped, not yet recorded */
  /* Sent before the record: fails as a death during the command, or
   * restarts first if the record came in time. */
  (void)launch(0, entry(E_EMPTY), 0, NULL);
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  pid_t restarted = find_server();
  assert_true(restarted > 0 && restarted != pid);
  usleep(600000); /* past the old supervisor's record */
  assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  assert_int_equal(find_server(), restarted);
  assert_int_equal(kill(restarted, 0), 0);
}

static void test_no_fd_leak_across_restarts(void **state) {
  (void)state;
  int before = 0, after = 0;
  DIR *d = opendir("/proc/self/fd");
  while (d && readdir(d))
    before++;
  closedir(d);
  uint64_t code = 1;
  for (int i = 0; i < 3; i++) {
    assert_int_equal(launch(0, entry(E_EXIT), 1, &code), OFFLOAD_FAIL);
    assert_int_equal(launch(0, entry(E_EMPTY), 0, NULL), OFFLOAD_SUCCESS);
  }
  d = opendir("/proc/self/fd");
  while (d && readdir(d))
    after++;
  closedir(d);
  assert_int_equal(before, after);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernel_reading_host_memory_is_reported),
      cmocka_unit_test(test_queue_fault_while_images_change),
      cmocka_unit_test(test_guard_page_catches_one_element_short),
      cmocka_unit_test(test_freed_memory_faults),
      cmocka_unit_test(test_freed_block_goes_back_to_its_host_object),
      cmocka_unit_test(test_huge_free_keeps_the_quarantine),
      cmocka_unit_test(test_freed_64mib_block_keeps_its_memory),
      cmocka_unit_test(test_large_freed_block_faults),
      cmocka_unit_test(test_freed_memory_is_given_back),
      cmocka_unit_test(test_host_address_in_device_memory_is_refused),
      cmocka_unit_test(test_memory_freed_before_any_launch_faults),
      cmocka_unit_test(test_reallocated_memory_keeps_its_guard),
      cmocka_unit_test(test_guard_regions_need_no_mapping_per_object),
      cmocka_unit_test(test_mprotect_guards_until_the_mapping_limit),
      cmocka_unit_test(test_kernel_exit_is_reported),
      cmocka_unit_test(test_killed_idle_device_restarts),
      cmocka_unit_test(test_late_supervisor_record_spares_next_process),
      cmocka_unit_test(test_no_fd_leak_across_restarts),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
