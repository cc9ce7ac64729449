/*
 * test_device.c - the device lifecycle against a plugin built in this test
 * (host memory, a load_binary that hands out a table, a call log): entries
 * and globals after loading, ctor kernels at load and dtor kernels before
 * unload, libraries registered late, and failures that are remembered.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device.h"
#include "fixtures/image_builder.h"
#include "plugins.h"
#include "registry.h"

#define assert_contains(haystack, needle)                                      \
  do {                                                                         \
    if (!strstr((haystack), (needle)))                                         \
      fail_msg("expected \"%s\" in \"%s\"", (needle), (haystack));             \
  } while (0)

/* ---- the test plugin --------------------------------------------------- */

#define MAX_TABLE 16
#define MAX_LOG 64

/* Device "code": a kernel's device address is &device_code[i] for host
 * entry i of the loaded image; globals get malloc'ed device memory. */
static char device_code[MAX_TABLE];

static struct {
  int32_t init_result;
  int64_t requires_result;
  int init_calls, load_calls, deinit_calls;
  int64_t requires_seen;
  bool short_table;  /* return one entry fewer than asked */
  bool fail_kernels; /* run_target_team_region fails */
  const __tgt_device_image *loaded;
  __tgt_offload_entry table_entries[4][MAX_TABLE];
  __tgt_target_table tables[4];
  void *globals[4][MAX_TABLE];
  int num_tables;
  int fptr_calls;
  uint64_t fptr_size;
  __tgt_fptr_map fptr_first;
  char log[MAX_LOG][80];
  int log_len;
} tp;

static void log_event(const char *fmt, ...) {
  if (tp.log_len >= MAX_LOG)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tp.log[tp.log_len++], sizeof tp.log[0], fmt, ap);
  va_end(ap);
}

/* Position of the first log line equal to `line`, or -1. */
static int log_index(const char *line) {
  for (int i = 0; i < tp.log_len; i++)
    if (!strcmp(tp.log[i], line))
      return i;
  return -1;
}

static int32_t tp_abi_version(void) { return SIMTARGET_PLUGIN_ABI_VERSION; }
static int32_t tp_number_of_devices(void) { return 1; }
/* Accepts x86-64 ELF only, like a CPU plugin. */
static int32_t tp_is_valid_binary(__tgt_device_image *image) {
  Elf64_Ehdr eh;
  memcpy(&eh, image->ImageStart, sizeof eh);
  return eh.e_machine == EM_X86_64;
}
static int32_t tp_init_device(int32_t id) {
  (void)id;
  tp.init_calls++;
  log_event("init");
  return tp.init_result;
}
static int64_t tp_init_requires(int64_t flags) {
  tp.requires_seen = flags;
  return tp.requires_result ? tp.requires_result : flags;
}
static __tgt_target_table *tp_load_binary(int32_t id,
                                          __tgt_device_image *image) {
  (void)id;
  tp.load_calls++;
  tp.loaded = image;
  int t = tp.num_tables++;
  const __tgt_offload_entry *host = image->EntriesBegin;
  size_t n = (size_t)((const __tgt_offload_entry *)image->EntriesEnd - host);
  for (size_t i = 0; i < n && i < MAX_TABLE; i++) {
    __tgt_offload_entry *d = &tp.table_entries[t][i];
    *d = host[i];
    if (host[i].flags & OMP_REGISTER_REQUIRES)
      d->addr = NULL;
    else if (host[i].size > 0)
      d->addr = tp.globals[t][i] = calloc(1, host[i].size);
    else
      d->addr = &device_code[i];
    /* an indirect function's device entry holds its device address */
    if (host[i].flags & OMP_DECLARE_TARGET_INDIRECT) {
      void *fn = &device_code[i];
      memcpy(d->addr, &fn, sizeof fn);
    }
  }
  tp.tables[t].EntriesBegin = tp.table_entries[t];
  tp.tables[t].EntriesEnd = tp.table_entries[t] + n - (tp.short_table ? 1 : 0);
  log_event("load %d", t);
  return &tp.tables[t];
}
static int32_t tp_unload_binary(int32_t id, __tgt_device_image *image) {
  (void)id;
  (void)image;
  log_event("unload");
  return 0;
}
static void *tp_data_alloc(int32_t id, int64_t size, void *h, int32_t kind) {
  (void)id;
  (void)h;
  (void)kind;
  return malloc((size_t)size);
}
static int32_t tp_data_submit(int32_t id, void *t, void *h, int64_t size) {
  (void)id;
  memcpy(t, h, (size_t)size);
  return 0;
}
static int32_t tp_data_retrieve(int32_t id, void *h, void *t, int64_t size) {
  (void)id;
  memcpy(h, t, (size_t)size);
  return 0;
}
static int32_t tp_data_delete(int32_t id, void *t) {
  (void)id;
  free(t);
  return 0;
}
static int32_t tp_run(int32_t id, void *entry, void **args, ptrdiff_t *offsets,
                      int32_t num_args, int32_t teams, int32_t threads,
                      uint64_t trip) {
  (void)id;
  (void)args;
  (void)offsets;
  (void)trip;
  log_event("run %ld args %d teams %d threads %d",
            (long)((char *)entry - device_code), num_args, teams, threads);
  return tp.fail_kernels ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}
static int32_t tp_deinit_device(int32_t id) {
  (void)id;
  tp.deinit_calls++;
  log_event("deinit");
  return 0;
}
static int32_t tp_set_function_ptr_map(int32_t id, uint64_t size,
                                       const __tgt_fptr_map *table) {
  (void)id;
  tp.fptr_calls++;
  tp.fptr_size = size;
  if (size > 0)
    tp.fptr_first = table[0];
  return 0;
}
static int32_t tp_get_last_error(int32_t id, __tgt_rtl_error *err) {
  (void)id;
  snprintf(err->message, sizeof err->message, "simulated: no such hardware");
  return 0;
}

static struct plugin test_plugin = {
    .name = "testdev",
    .num_devices = 1,
    .ops =
        {
            .abi_version = tp_abi_version,
            .number_of_devices = tp_number_of_devices,
            .is_valid_binary = tp_is_valid_binary,
            .init_device = tp_init_device,
            .init_requires = tp_init_requires,
            .load_binary = tp_load_binary,
            .unload_binary = tp_unload_binary,
            .data_alloc = tp_data_alloc,
            .data_submit = tp_data_submit,
            .data_retrieve = tp_data_retrieve,
            .data_delete = tp_data_delete,
            .run_target_team_region = tp_run,
            .deinit_device = tp_deinit_device,
            .get_last_error = tp_get_last_error,
            .set_function_ptr_map = tp_set_function_ptr_map,
        },
};

/* ---- what a compiled program would register ----------------------------- */

static char region_main, region_f, ctor_region, dtor_region, region_late;
static int gvar[4];
static double *link_ptr_host;
static long late_counter;
static void late_fn(void) {}

/* clang 15/16 style: an nvptx image first (refused), then an x86 one in a
 * container; legacy entries at an odd address with a C++ global's ctor and
 * dtor and a `declare target link` variable. */
enum { E_GVAR, E_MAIN, E_LINK, E_F, E_CTOR, E_DTOR, E_COUNT };
static struct {
  unsigned char nv[TEST_ELF_SIZE];
  unsigned char container[TEST_CONTAINER_SIZE];
  unsigned char entries[1 + E_COUNT * 32];
  __tgt_device_image images[2];
  __tgt_bin_desc desc;
} lib15;

static void build_lib15(void) {
  build_elf(lib15.nv, sizeof lib15.nv, EM_CUDA);
  build_container(lib15.container, "x86_64-pc-linux-gnu", "", EM_X86_64);
  unsigned char *p = lib15.entries + 1;
  put_legacy_entry(p + 32 * E_GVAR, gvar, "gvar", sizeof gvar, 0, 0);
  put_legacy_entry(p + 32 * E_MAIN, &region_main, "__omp_offloading_1_main_l5",
                   0, 0, 0);
  put_legacy_entry(p + 32 * E_LINK, &link_ptr_host, "link_ptr",
                   sizeof link_ptr_host, OMP_DECLARE_TARGET_LINK, 0);
  put_legacy_entry(p + 32 * E_F, &region_f, "__omp_offloading_1_f_l9", 0, 0,
                   0);
  put_legacy_entry(p + 32 * E_CTOR, &ctor_region,
                   "__omp_offloading__1_gobj_l3_ctor", 0,
                   OMP_DECLARE_TARGET_CTOR, 0);
  put_legacy_entry(p + 32 * E_DTOR, &dtor_region,
                   "__omp_offloading__1_gobj_l3_dtor", 0,
                   OMP_DECLARE_TARGET_DTOR, 0);
  for (int i = 0; i < 2; i++) {
    lib15.images[i].EntriesBegin = p;
    lib15.images[i].EntriesEnd = p + 32 * E_COUNT;
  }
  lib15.images[0].ImageStart = lib15.nv;
  lib15.images[0].ImageEnd = lib15.nv + sizeof lib15.nv;
  lib15.images[1].ImageStart = lib15.container;
  lib15.images[1].ImageEnd = lib15.container + sizeof lib15.container;
  lib15.desc.NumDeviceImages = 2;
  lib15.desc.DeviceImages = lib15.images;
  lib15.desc.HostEntriesBegin = p;
  lib15.desc.HostEntriesEnd = p + 32 * E_COUNT;
}

/* clang 22 style: raw ELF, 56-byte entries, an `enter` global (flags 0x2 with
 * a size, which is not a ctor), a requires entry and an indirect function. */
static struct {
  unsigned char elf[TEST_ELF_SIZE];
  __tgt_offload_entry_v1 entries[4];
  __tgt_device_image image;
  __tgt_bin_desc desc;
} lib22;

static void build_lib22(void) {
  build_elf(lib22.elf, sizeof lib22.elf, EM_X86_64);
  lib22.entries[0] = new_entry(&region_late, "__omp_offloading_2_g_l1", 0, 0, 0);
  lib22.entries[1] = new_entry(&late_counter, "late_counter",
                               sizeof late_counter, 0x2, 0);
  lib22.entries[2] = new_entry(NULL, ".requires", 0, OMP_REGISTER_REQUIRES, 1);
  lib22.entries[3] = new_entry((void *)late_fn, "__omp_offloading_2_late_fn",
                               8, OMP_DECLARE_TARGET_INDIRECT, 0);
  lib22.image.ImageStart = lib22.elf;
  lib22.image.ImageEnd = lib22.elf + sizeof lib22.elf;
  lib22.image.EntriesBegin = lib22.entries;
  lib22.image.EntriesEnd = lib22.entries + 4;
  lib22.desc.NumDeviceImages = 1;
  lib22.desc.DeviceImages = &lib22.image;
  lib22.desc.HostEntriesBegin = lib22.entries;
  lib22.desc.HostEntriesEnd = lib22.entries + 4;
}

static struct device dev;

static int setup(void **state) {
  (void)state;
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < MAX_TABLE; i++)
      free(tp.globals[t][i]);
  memset(&tp, 0, sizeof tp);
  build_lib15();
  build_lib22();
  registry_reset_requires_for_test();
  plugins_reset_rejections_for_test();
  report_error_clear();
  return device_setup(&dev, 0, &test_plugin, 0);
}

static int teardown(void **state) {
  (void)state;
  struct registered_lib *lib;
  while ((lib = registry_remove(&lib15.desc)) ||
         (lib = registry_remove(&lib22.desc))) {
    device_unload_lib(&dev, lib);
    registry_free(lib);
  }
  device_release(&dev);
  return 0;
}

static struct mapping_entry *find_mapping(void *host) {
  pthread_mutex_lock(&dev.map.lock);
  struct mapping_entry *m = mapping_find(&dev.map, (uintptr_t)host);
  pthread_mutex_unlock(&dev.map.lock);
  return m;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_ready_loads_entries_globals_and_runs_ctors(void **state) {
  (void)state;
  assert_int_equal(registry_add(&lib15.desc), 0);
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(dev.state, DEVICE_READY);
  assert_int_equal(tp.init_calls, 1);
  assert_int_equal(tp.load_calls, 1);
  /* the refused nvptx image was skipped; the plugin got the container's ELF
   * with aligned legacy entries */
  assert_ptr_equal(tp.loaded->ImageStart,
                   lib15.container + TEST_CONTAINER_IMAGE_OFFSET);
  assert_int_equal((uintptr_t)tp.loaded->EntriesBegin % 8, 0);

  struct device_entry k;
  assert_int_equal(device_lookup_entry(&dev, &region_main, &k), 0);
  assert_ptr_equal(k.tgt_addr, &device_code[E_MAIN]);
  assert_string_equal(k.name, "__omp_offloading_1_main_l5");
  assert_int_equal(device_lookup_entry(&dev, &region_f, &k), 0);
  assert_ptr_equal(k.tgt_addr, &device_code[E_F]);

  /* the declare-target global: whole range, never removed, not ours */
  struct mapping_entry *m = find_mapping(&gvar[2]);
  assert_non_null(m);
  assert_int_equal(m->hst_begin, (uintptr_t)gvar);
  assert_int_equal(m->hst_end, (uintptr_t)(gvar + 4));
  assert_int_equal(m->tgt_begin, (uintptr_t)tp.globals[0][E_GVAR]);
  assert_true(m->dyn_refcount == MAPPING_REFCOUNT_INFINITE);
  assert_false(m->owned);
  assert_string_equal(m->name, "gvar");
  /* a link variable: the host ref pointer is mapped onto the device one, so
   * that a PTR_AND_OBJ map of the variable can fill the device pointer */
  m = find_mapping(&link_ptr_host);
  assert_non_null(m);
  assert_int_equal(m->tgt_begin, (uintptr_t)tp.globals[0][E_LINK]);
  assert_int_equal(m->hst_end - m->hst_begin, sizeof link_ptr_host);
  assert_true(m->dyn_refcount == MAPPING_REFCOUNT_INFINITE);
  assert_int_equal(device_lookup_entry(&dev, &link_ptr_host, &k), 0);
  assert_int_equal(k.flags, OMP_DECLARE_TARGET_LINK);
  assert_ptr_equal(k.tgt_addr, tp.globals[0][E_LINK]);

  /* the ctor kernel ran once, one team of one thread; the dtor did not */
  char ctor_line[80], dtor_line[80];
  snprintf(ctor_line, sizeof ctor_line, "run %d args 0 teams 1 threads 1",
           E_CTOR);
  snprintf(dtor_line, sizeof dtor_line, "run %d args 0 teams 1 threads 1",
           E_DTOR);
  assert_true(log_index(ctor_line) > log_index("load 0"));
  assert_int_equal(log_index(dtor_line), -1);

  /* a second call loads nothing again and reruns no ctor */
  int events = tp.log_len;
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(tp.load_calls, 1);
  assert_int_equal(tp.init_calls, 1);
  assert_int_equal(tp.log_len, events);

  /* an unknown region is reported, not guessed */
  report_error_clear();
  char stray;
  assert_int_equal(device_lookup_entry(&dev, &stray, &k), -1);
  assert_contains(report_error_get(), "no device code for target region");
  assert_contains(report_error_get(), "no registered library has this host entry");

  /* the entry table is sorted by host address */
  for (size_t i = 1; i < dev.num_entries; i++)
    assert_true((uintptr_t)dev.entries[i - 1].host_addr <
                (uintptr_t)dev.entries[i].host_addr);
}

static void test_late_library_and_unload_with_dtors_first(void **state) {
  (void)state;
  assert_int_equal(registry_add(&lib15.desc), 0);
  assert_int_equal(device_ready(&dev), 0);
  /* registered after the device became ready: loaded on the next call */
  assert_int_equal(registry_add(&lib22.desc), 0);
  struct device_entry k;
  assert_int_equal(device_lookup_entry(&dev, &region_late, &k), -1);
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(tp.load_calls, 2);
  assert_int_equal(tp.init_calls, 1);
  assert_int_equal(device_lookup_entry(&dev, &region_late, &k), 0);
  assert_ptr_equal(k.tgt_addr, &device_code[0]);
  /* the `enter` global (0x2 with a size) is mapped, not run as a ctor */
  struct mapping_entry *m = find_mapping(&late_counter);
  assert_non_null(m);
  assert_int_equal(m->tgt_begin, (uintptr_t)tp.globals[1][1]);
  assert_int_equal(log_index("run 1 args 0 teams 1 threads 1"), -1);
  /* the indirect function reached the plugin's translation table (seed 003),
   * and was not mapped as data */
  assert_int_equal(tp.fptr_calls, 1);
  assert_int_equal(tp.fptr_size, 1);
  assert_int_equal(tp.fptr_first.host_ptr, (uintptr_t)late_fn);
  assert_int_equal(tp.fptr_first.device_ptr, (uintptr_t)&device_code[3]);
  assert_null(find_mapping((void *)late_fn));
  assert_ptr_equal(device_translate_fptr(&dev, (void *)late_fn),
                   &device_code[3]);
  /* anything else is left alone, kernels included */
  assert_ptr_equal(device_translate_fptr(&dev, &region_late), &region_late);
  assert_ptr_equal(device_translate_fptr(&dev, &late_counter), &late_counter);

  /* found once more just before the unload: a lookup after it must not
   * answer from what this thread found last (device_lookup_entry's cache) */
  assert_int_equal(device_lookup_entry(&dev, &region_main, &k), 0);
  /* unloading lib15: its dtor runs before the image goes */
  struct registered_lib *lib = registry_remove(&lib15.desc);
  assert_non_null(lib);
  device_unload_lib(&dev, lib);
  char dtor_line[80];
  snprintf(dtor_line, sizeof dtor_line, "run %d args 0 teams 1 threads 1",
           E_DTOR);
  int dtor_at = log_index(dtor_line), unload_at = log_index("unload");
  assert_true(dtor_at >= 0);
  assert_true(unload_at > dtor_at);
  assert_null(find_mapping(gvar));
  assert_null(find_mapping(&link_ptr_host));
  assert_int_equal(device_lookup_entry(&dev, &region_main, &k), -1);
  assert_int_equal(device_lookup_entry(&dev, &link_ptr_host, &k), -1);
  /* lib22 is untouched */
  assert_int_equal(device_lookup_entry(&dev, &region_late, &k), 0);
  assert_non_null(find_mapping(&late_counter));
  registry_free(lib);
  /* unloading a library the device never loaded does nothing */
  char err[256];
  struct registered_lib *stranger =
      registry_parse_descriptor(&lib15.desc, err, sizeof err);
  assert_non_null(stranger);
  int events = tp.log_len;
  device_unload_lib(&dev, stranger);
  assert_int_equal(tp.log_len, events);
  registry_free(stranger);
}

static void test_failed_init_is_reported_and_remembered(void **state) {
  (void)state;
  tp.init_result = -7;
  assert_int_equal(registry_add(&lib15.desc), 0);
  assert_int_equal(device_ready(&dev), -1);
  assert_int_equal(dev.state, DEVICE_FAILED);
  assert_contains(report_error_get(), "device 0 (plugin testdev");
  assert_contains(report_error_get(), "__tgt_rtl_init_device returned -7");
  assert_contains(report_error_get(), "simulated: no such hardware");
  report_error_clear();
  tp.init_result = 0; /* a later call must not retry */
  assert_int_equal(device_ready(&dev), -1);
  assert_int_equal(tp.init_calls, 1);
  assert_int_equal(tp.load_calls, 0);
  assert_contains(report_error_get(), "__tgt_rtl_init_device returned -7");
  /* no deinit for a device that never came up */
  device_release(&dev);
  assert_int_equal(tp.deinit_calls, 0);
  assert_int_equal(device_setup(&dev, 0, &test_plugin, 0), 0);
}

static void test_requires_flags_reach_the_plugin(void **state) {
  (void)state;
  registry_add_requires(OMP_REQ_UNIFIED_SHARED_MEMORY);
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(tp.requires_seen, OMP_REQ_UNIFIED_SHARED_MEMORY);
  assert_true(log_index("init") >= 0);
  device_release(&dev);
  assert_int_equal(tp.deinit_calls, 1);

  /* a plugin that cannot honour them fails the device */
  assert_int_equal(device_setup(&dev, 0, &test_plugin, 0), 0);
  tp.requires_result = OFFLOAD_FAIL;
  report_error_clear();
  assert_int_equal(device_ready(&dev), -1);
  assert_contains(report_error_get(), "cannot honour the 'requires' flags 0x8");
  assert_int_equal(tp.init_calls, 1);
}

static void test_library_without_an_accepted_image_is_explained(void **state) {
  (void)state;
  lib15.desc.NumDeviceImages = 1; /* the nvptx image only */
  assert_int_equal(registry_add(&lib15.desc), 0);
  assert_int_equal(device_ready(&dev), 0); /* not a device failure */
  assert_int_equal(dev.state, DEVICE_READY);
  assert_int_equal(tp.load_calls, 0);
  const char *rej = plugins_rejections();
  assert_contains(rej, "image 0 of library registered at 0x");
  assert_contains(rej, "triple unknown (raw image), not accepted by plugin"
                       " testdev (ELF machine 190");
  /* said once, however often the device is asked */
  size_t len = strlen(rej);
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(strlen(plugins_rejections()), len);
  report_error_clear();
  struct device_entry k;
  assert_int_equal(device_lookup_entry(&dev, &region_main, &k), -1);
  assert_contains(report_error_get(), "no device code for target region");
  /* other libraries still load */
  assert_int_equal(registry_add(&lib22.desc), 0);
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(device_lookup_entry(&dev, &region_late, &k), 0);
}

static void test_short_table_fails_the_device(void **state) {
  (void)state;
  tp.short_table = true;
  assert_int_equal(registry_add(&lib15.desc), 0);
  assert_int_equal(device_ready(&dev), -1);
  assert_contains(report_error_get(), "has 5 entries, the library has 6");
  assert_int_equal(dev.state, DEVICE_FAILED);
  assert_true(log_index("unload") > log_index("load 0"));
}

static void test_failing_ctor_fails_the_device(void **state) {
  (void)state;
  tp.fail_kernels = true;
  assert_int_equal(registry_add(&lib15.desc), 0);
  assert_int_equal(device_ready(&dev), -1);
  assert_contains(report_error_get(), "C++ constructor");
  assert_contains(dev.failure, "__omp_offloading__1_gobj_l3_ctor");
  assert_int_equal(dev.state, DEVICE_FAILED);
  /* unloading a failed device runs no dtor but still unloads the image */
  struct registered_lib *lib = registry_remove(&lib15.desc);
  int runs_before = 0;
  for (int i = 0; i < tp.log_len; i++)
    runs_before += !strncmp(tp.log[i], "run", 3);
  device_unload_lib(&dev, lib);
  int runs_after = 0;
  for (int i = 0; i < tp.log_len; i++)
    runs_after += !strncmp(tp.log[i], "run", 3);
  assert_int_equal(runs_after, runs_before);
  assert_true(log_index("unload") >= 0);
  assert_null(find_mapping(gvar));
  registry_free(lib);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(
          test_ready_loads_entries_globals_and_runs_ctors, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_late_library_and_unload_with_dtors_first, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_failed_init_is_reported_and_remembered, setup, teardown),
      cmocka_unit_test_setup_teardown(test_requires_flags_reach_the_plugin,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_library_without_an_accepted_image_is_explained, setup,
          teardown),
      cmocka_unit_test_setup_teardown(test_short_table_fails_the_device, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_failing_ctor_fails_the_device,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
