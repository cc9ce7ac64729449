/*
 * test_indirect.c - the `declare target indirect` table of a device
 * (src/device.c) against a plugin built in this test: rows read through the
 * image's 8-byte entries, sorted by host address, handed whole to
 * set_function_ptr_map; a host function several libraries declare indirect
 * appears once and survives the unloading of one of them; translation of
 * kernel arguments; and the ELF symbol lookups that name host functions
 * (src/hostsyms.c).
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
#include "hostsyms.h"
#include "plugins.h"
#include "registry.h"

/* ---- host functions the libraries declare indirect --------------------- */

int indirect_fn_a(int x);
int indirect_fn_b(int x);
int indirect_fn_c(int x);
__attribute__((noinline)) int indirect_fn_a(int x) { return x + 1; }
__attribute__((noinline)) int indirect_fn_b(int x) { return x * 2; }
__attribute__((noinline)) int indirect_fn_c(int x) { return x - 3; }

/* ---- the test plugin: device memory is host memory --------------------- */

#define MAX_TABLES 4
#define MAX_ENTRIES 8
#define MAX_ROWS 16

/* Device "code" of entry i of the t-th loaded image. */
static char device_code[MAX_TABLES][MAX_ENTRIES];

static struct {
  __tgt_offload_entry entries[MAX_TABLES][MAX_ENTRIES];
  __tgt_target_table tables[MAX_TABLES];
  void *globals[MAX_TABLES][MAX_ENTRIES];
  int num_tables;
  bool fail_retrieve;
  int fptr_calls;
  uint64_t fptr_size;
  __tgt_fptr_map rows[MAX_ROWS];
} tp;

static int32_t tp_abi_version(void) { return SIMTARGET_PLUGIN_ABI_VERSION; }
static int32_t tp_number_of_devices(void) { return 1; }
static int32_t tp_is_valid_binary(__tgt_device_image *image) {
  (void)image;
  return 1;
}
static int32_t tp_init_device(int32_t id) {
  (void)id;
  return OFFLOAD_SUCCESS;
}
/* Like a CPU plugin: an indirect entry's device object holds the address of
 * the device function. */
static __tgt_target_table *tp_load_binary(int32_t id,
                                          __tgt_device_image *image) {
  (void)id;
  int t = tp.num_tables++;
  const __tgt_offload_entry *host = image->EntriesBegin;
  size_t n = (size_t)((const __tgt_offload_entry *)image->EntriesEnd - host);
  for (size_t i = 0; i < n && i < MAX_ENTRIES; i++) {
    __tgt_offload_entry *d = &tp.entries[t][i];
    *d = host[i];
    if (host[i].size > 0)
      d->addr = tp.globals[t][i] = calloc(1, host[i].size);
    else
      d->addr = &device_code[t][i];
    if (host[i].flags & OMP_DECLARE_TARGET_INDIRECT) {
      void *fn = &device_code[t][i];
      memcpy(d->addr, &fn, sizeof fn);
    }
  }
  tp.tables[t].EntriesBegin = tp.entries[t];
  tp.tables[t].EntriesEnd = tp.entries[t] + n;
  return &tp.tables[t];
}
static int32_t tp_unload_binary(int32_t id, __tgt_device_image *image) {
  (void)id;
  (void)image;
  return OFFLOAD_SUCCESS;
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
  return OFFLOAD_SUCCESS;
}
static int32_t tp_data_retrieve(int32_t id, void *h, void *t, int64_t size) {
  (void)id;
  if (tp.fail_retrieve)
    return OFFLOAD_FAIL;
  memcpy(h, t, (size_t)size);
  return OFFLOAD_SUCCESS;
}
static int32_t tp_data_delete(int32_t id, void *t) {
  (void)id;
  free(t);
  return OFFLOAD_SUCCESS;
}
static int32_t tp_run(int32_t id, void *entry, void **args, ptrdiff_t *offsets,
                      int32_t num_args, int32_t teams, int32_t threads,
                      uint64_t trip) {
  (void)id, (void)entry, (void)args, (void)offsets, (void)num_args;
  (void)teams, (void)threads, (void)trip;
  return OFFLOAD_SUCCESS;
}
/* Keeps a copy of the whole table, as the simdevice plugin does. */
static int32_t tp_set_function_ptr_map(int32_t id, uint64_t size,
                                       const __tgt_fptr_map *table) {
  (void)id;
  tp.fptr_calls++;
  tp.fptr_size = size;
  for (uint64_t i = 0; i < size && i < MAX_ROWS; i++)
    tp.rows[i] = table[i];
  return OFFLOAD_SUCCESS;
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
            .load_binary = tp_load_binary,
            .unload_binary = tp_unload_binary,
            .data_alloc = tp_data_alloc,
            .data_submit = tp_data_submit,
            .data_retrieve = tp_data_retrieve,
            .data_delete = tp_data_delete,
            .run_target_team_region = tp_run,
            .set_function_ptr_map = tp_set_function_ptr_map,
        },
};

/* ---- two clang-22 style libraries --------------------------------------- */

static char region_a, region_b;

struct test_lib {
  unsigned char elf[TEST_ELF_SIZE];
  __tgt_offload_entry_v1 entries[4];
  __tgt_device_image image;
  __tgt_bin_desc desc;
  int n;
};

/* Library A: a kernel and indirect b, a (entries deliberately not in host
 * address order). Library B: a kernel, indirect a again (the same host
 * function declared indirect in another library) and c. */
static struct test_lib lib_a, lib_b;

static void add_entry(struct test_lib *l, void *addr, const char *name,
                      uint64_t size, int32_t flags) {
  l->entries[l->n++] = new_entry(addr, name, size, flags, 0);
}

static void finish(struct test_lib *l) {
  build_elf(l->elf, sizeof l->elf, EM_X86_64);
  l->image.ImageStart = l->elf;
  l->image.ImageEnd = l->elf + sizeof l->elf;
  l->image.EntriesBegin = l->entries;
  l->image.EntriesEnd = l->entries + l->n;
  l->desc.NumDeviceImages = 1;
  l->desc.DeviceImages = &l->image;
  l->desc.HostEntriesBegin = l->entries;
  l->desc.HostEntriesEnd = l->entries + l->n;
}

static void build_libs(void) {
  memset(&lib_a, 0, sizeof lib_a);
  memset(&lib_b, 0, sizeof lib_b);
  void *a = (void *)indirect_fn_a, *b = (void *)indirect_fn_b,
       *c = (void *)indirect_fn_c;
  void *hi = (uintptr_t)a > (uintptr_t)b ? a : b;
  void *lo = hi == a ? b : a;
  add_entry(&lib_a, &region_a, "__omp_offloading_1_main_l1", 0, 0);
  add_entry(&lib_a, hi, hi == a ? "__omp_offloading_1_a_l2" : "__omp_offloading_1_b_l3",
            8, OMP_DECLARE_TARGET_INDIRECT);
  add_entry(&lib_a, lo, lo == a ? "__omp_offloading_1_a_l2" : "__omp_offloading_1_b_l3",
            8, OMP_DECLARE_TARGET_INDIRECT);
  finish(&lib_a);
  add_entry(&lib_b, &region_b, "__omp_offloading_2_main_l1", 0, 0);
  add_entry(&lib_b, a, "__omp_offloading_2_a_l7", 8, OMP_DECLARE_TARGET_INDIRECT);
  add_entry(&lib_b, c, "__omp_offloading_2_c_l8", 8, OMP_DECLARE_TARGET_INDIRECT);
  finish(&lib_b);
}

static struct device dev;

static int setup(void **state) {
  (void)state;
  for (int t = 0; t < MAX_TABLES; t++)
    for (int i = 0; i < MAX_ENTRIES; i++)
      free(tp.globals[t][i]);
  memset(&tp, 0, sizeof tp);
  build_libs();
  registry_reset_requires_for_test();
  report_error_clear();
  return device_setup(&dev, 0, &test_plugin, 0);
}

static int teardown(void **state) {
  (void)state;
  struct registered_lib *lib;
  while ((lib = registry_remove(&lib_a.desc)) ||
         (lib = registry_remove(&lib_b.desc))) {
    device_unload_lib(&dev, lib);
    registry_free(lib);
  }
  device_teardown(&dev);
  return 0;
}

/* The device address the plugin gave entry i of the t-th loaded image. */
static uint64_t code(int t, int i) {
  return (uint64_t)(uintptr_t)&device_code[t][i];
}

static uint64_t host(void *fn) { return (uint64_t)(uintptr_t)fn; }

/* ---- tests --------------------------------------------------------------- */

static void test_rows_are_read_sorted_and_translate(void **state) {
  (void)state;
  assert_int_equal(registry_add(&lib_a.desc), 0);
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(tp.fptr_calls, 1);
  assert_int_equal(tp.fptr_size, 2);
  /* sorted by host address, device side read through the 8-byte entry */
  assert_true(tp.rows[0].host_ptr < tp.rows[1].host_ptr);
  for (int r = 0; r < 2; r++) {
    int entry = tp.rows[r].host_ptr == host(lib_a.entries[1].address) ? 1 : 2;
    assert_int_equal(tp.rows[r].host_ptr, host(lib_a.entries[entry].address));
    assert_int_equal(tp.rows[r].device_ptr, code(0, entry));
  }
  void *dev_a = device_translate_fptr(&dev, (void *)indirect_fn_a);
  void *dev_b = device_translate_fptr(&dev, (void *)indirect_fn_b);
  assert_ptr_not_equal(dev_a, (void *)indirect_fn_a);
  assert_ptr_not_equal(dev_a, dev_b);
  assert_true(dev_a == &device_code[0][1] || dev_a == &device_code[0][2]);
  /* not indirect: unchanged, whether unknown or another kind of entry */
  assert_ptr_equal(device_translate_fptr(&dev, (void *)indirect_fn_c),
                   (void *)indirect_fn_c);
  assert_ptr_equal(device_translate_fptr(&dev, &region_a), &region_a);
  /* readying again loads nothing new and publishes nothing */
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(tp.fptr_calls, 1);
}

static void test_duplicates_across_libraries(void **state) {
  (void)state;
  assert_int_equal(registry_add(&lib_a.desc), 0);
  assert_int_equal(device_ready(&dev), 0);
  assert_int_equal(registry_add(&lib_b.desc), 0);
  assert_int_equal(device_ready(&dev), 0);
  /* the whole table again: a, b, c, with a once */
  assert_int_equal(tp.fptr_calls, 2);
  assert_int_equal(tp.fptr_size, 3);
  for (int r = 1; r < 3; r++)
    assert_true(tp.rows[r - 1].host_ptr < tp.rows[r].host_ptr);
  /* unloading A keeps B's copy of a (B's table is the second one) */
  struct registered_lib *a = registry_remove(&lib_a.desc);
  assert_non_null(a);
  device_unload_lib(&dev, a);
  registry_free(a);
  assert_int_equal(tp.fptr_calls, 3);
  assert_int_equal(tp.fptr_size, 2);
  assert_ptr_equal(device_translate_fptr(&dev, (void *)indirect_fn_a),
                   &device_code[1][1]);
  assert_ptr_equal(device_translate_fptr(&dev, (void *)indirect_fn_c),
                   &device_code[1][2]);
  assert_ptr_equal(device_translate_fptr(&dev, (void *)indirect_fn_b),
                   (void *)indirect_fn_b);
  /* unloading B empties the device's table, and says so */
  struct registered_lib *b = registry_remove(&lib_b.desc);
  device_unload_lib(&dev, b);
  registry_free(b);
  assert_int_equal(tp.fptr_calls, 4);
  assert_int_equal(tp.fptr_size, 0);
  assert_ptr_equal(device_translate_fptr(&dev, (void *)indirect_fn_a),
                   (void *)indirect_fn_a);
}

static void test_unreadable_entry_is_left_out(void **state) {
  (void)state;
  tp.fail_retrieve = true;
  assert_int_equal(registry_add(&lib_a.desc), 0);
  assert_int_equal(device_ready(&dev), 0);
  /* no row points at the entry object instead of the function */
  assert_int_equal(tp.fptr_calls, 0);
  assert_ptr_equal(device_translate_fptr(&dev, (void *)indirect_fn_a),
                   (void *)indirect_fn_a);
  assert_string_equal(report_error_get(), "");
}

static void test_host_symbols(void **state) {
  (void)state;
  char name[64];
  /* not exported: found through the program's own .symtab */
  assert_true(host_function_at((void *)indirect_fn_b, name, sizeof name));
  assert_string_equal(name, "indirect_fn_b");
  assert_false(host_function_at((char *)indirect_fn_b + 1, name, sizeof name));
  assert_false(host_function_at(&region_a, name, sizeof name));
  struct elf_syms syms;
  assert_int_equal(elf_syms_of_host_object(&region_a, &syms), 0);
  assert_ptr_equal(elf_syms_find_function(&syms, "indirect_fn_c"),
                   (void *)indirect_fn_c);
  assert_null(elf_syms_find_function(&syms, "no_such_function_here"));
  elf_syms_close(&syms);
  /* bad input gives no symbols, never a crash */
  unsigned char junk[128];
  memset(junk, 0xff, sizeof junk);
  memcpy(junk, ELFMAG, SELFMAG);
  junk[EI_CLASS] = ELFCLASS64;
  assert_int_equal(elf_syms_from_memory(junk, sizeof junk, false, &syms), -1);
  assert_int_equal(elf_syms_from_memory(NULL, 0, true, &syms), -1);
  assert_int_equal(elf_syms_of_host_object((void *)16, &syms), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_rows_are_read_sorted_and_translate,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_duplicates_across_libraries, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_unreadable_entry_is_left_out, setup,
                                      teardown),
      cmocka_unit_test(test_host_symbols),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
