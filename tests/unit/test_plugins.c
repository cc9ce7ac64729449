/*
 * test_plugins.c - the interface-compliance check, the discovery order, and
 * loading real plugin files (build/tests/plugins/libomptarget.rtl.<x>.so,
 * built by the Makefile from tests/unit/fixtures/rtl_<x>.c), and that the
 * memory kind of llvm_omp_target_alloc_host/_shared is the plugin's to
 * decide.
 */
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "device.h"
#include "plugins.h"

#define assert_contains(haystack, needle)                                      \
  do {                                                                         \
    if (!strstr((haystack), (needle)))                                         \
      fail_msg("expected \"%s\" in \"%s\"", (needle), (haystack));             \
  } while (0)

/* ---- the compliance check on a table built in the test ----------------- */

/* One do-nothing function per interface row (a test double of a plugin). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define DOUBLE_FN(req, ret, name, params, args, fail)                          \
  static ret double_##name params { return (ret)0; }
TGT_RTL_INTERFACE(DOUBLE_FN)
#undef DOUBLE_FN
#pragma GCC diagnostic pop
static int32_t double_abi_version_1(void) { return 1; }
static int32_t double_abi_version_2(void) { return 2; }

static struct plugin_ops full_ops(void) {
  struct plugin_ops ops;
#define FILL(req, ret, name, params, args, fail) ops.name = double_##name;
  TGT_RTL_INTERFACE(FILL)
#undef FILL
  ops.abi_version = double_abi_version_1;
  return ops;
}

static void test_compliance_accepts_a_full_table(void **state) {
  (void)state;
  struct plugin_ops ops = full_ops();
  char why[256] = "";
  assert_int_equal(plugins_check_compliance(&ops, why, sizeof why), 0);
  /* optional functions may be absent */
  ops.init_plugin = NULL;
  ops.unload_binary = NULL;
  ops.get_last_error = NULL;
  assert_int_equal(plugins_check_compliance(&ops, why, sizeof why), 0);
}

static void test_compliance_names_each_missing_required_function(void **state) {
  (void)state;
  char why[256];
  struct plugin_ops ops = full_ops();
  ops.load_binary = NULL;
  assert_int_equal(plugins_check_compliance(&ops, why, sizeof why), -1);
  assert_string_equal(why, "missing required function __tgt_rtl_load_binary");
  ops = full_ops();
  ops.run_target_team_region = NULL;
  assert_int_equal(plugins_check_compliance(&ops, why, sizeof why), -1);
  assert_string_equal(why,
                      "missing required function __tgt_rtl_run_target_team_region");
  ops = full_ops();
  ops.abi_version = NULL;
  assert_int_equal(plugins_check_compliance(&ops, why, sizeof why), -1);
  assert_string_equal(why, "missing required function __tgt_rtl_abi_version");
}

static void test_compliance_refuses_another_abi_version(void **state) {
  (void)state;
  struct plugin_ops ops = full_ops();
  ops.abi_version = double_abi_version_2;
  char why[256];
  assert_int_equal(plugins_check_compliance(&ops, why, sizeof why), -1);
  assert_string_equal(why, "plugin ABI version 2, libomptarget expects 1");
}

/* ---- discovery order ----------------------------------------------------- */

static void touch(const char *dir, const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
}

static void test_folder_order_simdevice_cuda_then_alphabetical(void **state) {
  (void)state;
  char dir[] = "/tmp/simtarget-plugins-XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *files[] = {"libomptarget.rtl.zeta.so", "libomptarget.rtl.cuda.so",
                         "libomptarget.rtl.alpha.so",
                         "libomptarget.rtl.simdevice.so",
                         "libomptarget.rtl.x86_64.so.1", /* not a plugin name */
                         "libomptarget.rtl..so", "libother.so"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    touch(dir, files[i]);
  char **names;
  size_t n;
  assert_int_equal(plugins_list_folder(dir, &names, &n), 0);
  assert_int_equal(n, 4);
  assert_string_equal(names[0], "simdevice");
  assert_string_equal(names[1], "cuda");
  assert_string_equal(names[2], "alpha");
  assert_string_equal(names[3], "zeta");
  plugins_free_names(names, n);
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  rmdir(dir);
  assert_int_equal(plugins_list_folder("/nonexistent/simtarget", &names, &n),
                   -1);
}

/* ---- real plugin files ------------------------------------------------- */

static char fixture_dir[PATH_MAX / 2];

/* build/tests/unit/test_plugins -> build/tests/plugins */
static int find_fixtures(void **state) {
  (void)state;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return -1;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  *slash = '\0';
  slash = strrchr(self, '/');
  *slash = '\0';
  if (strlen(self) + sizeof "/plugins" > sizeof fixture_dir)
    return -1;
  memcpy(fixture_dir, self, strlen(self));
  strcat(fixture_dir, "/plugins");
  return 0;
}

static const char *fixture(const char *name, char *buf, size_t len) {
  snprintf(buf, len, "%s/libomptarget.rtl.%s.so", fixture_dir, name);
  return buf;
}

static void expect_open_error(const char *name, const char *words) {
  char path[PATH_MAX], why[512] = "";
  struct plugin p;
  assert_int_equal(plugins_open(fixture(name, path, sizeof path), &p, why,
                                sizeof why), -1);
  assert_contains(why, words);
  assert_null(p.handle);
}

static void test_open_checks_real_files(void **state) {
  (void)state;
  char path[PATH_MAX], why[512] = "";
  struct plugin p;
  assert_int_equal(plugins_open(fixture("twodev", path, sizeof path), &p, why,
                                sizeof why), 0);
  assert_string_equal(p.name, "twodev");
  assert_string_equal(p.path, path);
  assert_int_equal(p.num_devices, 2);
  assert_non_null(p.ops.load_binary);
  assert_non_null(p.ops.deinit_plugin);
  assert_null(p.ops.unload_binary); /* optional and absent */
  int *inits = dlsym(p.handle, "fixture_init_calls");
  assert_non_null(inits);
  assert_int_equal(*inits, 1);
  plugins_close(&p);

  expect_open_error("noload", "missing required function __tgt_rtl_load_binary");
  expect_open_error("abi2", "plugin ABI version 2, libomptarget expects 1");
  expect_open_error("badinit", "__tgt_rtl_init_plugin returned -1");
  expect_open_error("negdev", "__tgt_rtl_number_of_devices returned -5");
  expect_open_error("nosuchplugin", "cannot be loaded");
}

/* Runs `fn` with stderr going to a file, and returns what was printed. */
static char *capture_stderr(int (*fn)(void), int *result) {
  char tmpl[] = "/tmp/simtarget-stderr-XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  *result = fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  static char text[16384];
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(tmpl);
  return text;
}

static void test_discovery_from_env_list_numbers_devices(void **state) {
  (void)state;
  char two[PATH_MAX], three[PATH_MAX], noload[PATH_MAX], abi2[PATH_MAX];
  char list[8 * PATH_MAX];
  snprintf(list, sizeof list, "%s, %s,%s,%s,%s,nosuchplugin",
           fixture("twodev", two, sizeof two),
           fixture("noload", noload, sizeof noload),
           fixture("abi2", abi2, sizeof abi2),
           fixture("threedev", three, sizeof three), two);
  setenv("LIBOMPTARGET_PLUGINS", list, 1);
  settings_reread_for_test();
  plugins_reset_rejections_for_test();
  report_set_info_flags(0x1);
  int devices = 0;
  char *printed = capture_stderr(plugins_load_all, &devices);
  report_set_info_flags(0);
  assert_int_equal(devices, 5);
  assert_int_equal(plugins_count(), 2);
  struct plugin *a = plugins_get(0), *b = plugins_get(1);
  assert_string_equal(a->name, "twodev");
  assert_int_equal(a->first_device, 0);
  assert_int_equal(a->num_devices, 2);
  assert_string_equal(b->name, "threedev");
  assert_int_equal(b->first_device, 2);
  assert_int_equal(b->num_devices, 3);
  assert_null(plugins_get(2));
  assert_ptr_equal(plugins_for_device(0), a);
  assert_ptr_equal(plugins_for_device(1), a);
  assert_ptr_equal(plugins_for_device(2), b);
  assert_ptr_equal(plugins_for_device(4), b);
  assert_null(plugins_for_device(5));
  assert_null(plugins_for_device(-1));

  /* why each other one was refused, kept and printed under LIBOMPTARGET_INFO */
  const char *rej = plugins_rejections();
  assert_contains(rej, "libomptarget.rtl.noload.so: missing required function"
                       " __tgt_rtl_load_binary");
  assert_contains(rej, "libomptarget.rtl.abi2.so: plugin ABI version 2,"
                       " libomptarget expects 1");
  assert_contains(rej, "a plugin named 'twodev' is already loaded");
  assert_contains(rej, "/libomptarget.rtl.nosuchplugin.so: cannot be loaded");
  assert_contains(printed, "omptarget info: ");
  assert_contains(printed, "missing required function __tgt_rtl_load_binary");

  /* devices follow the ranges: global 3 is threedev's device 1 */
  assert_int_equal(devices_count(), 5);
  struct device *d3 = device_get(3);
  assert_non_null(d3);
  assert_ptr_equal(d3->plugin, b);
  assert_int_equal(d3->rtl_id, 1);
  assert_null(device_get(5));
  assert_null(device_get(-1));
  assert_int_equal(device_ready(d3), 0);
  assert_int_equal(d3->state, DEVICE_READY);

  /* keep threedev mapped across the unload to read its counters */
  void *keep = dlopen(three, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(keep);
  int *deinits = dlsym(keep, "fixture_deinit_calls");
  int *dev_inits = dlsym(keep, "fixture_init_device_calls");
  assert_int_equal(*dev_inits, 1);
  assert_int_equal(*deinits, 0);
  devices_release_all();
  plugins_unload_all();
  assert_int_equal(*deinits, 1);
  dlclose(keep);
  unsetenv("LIBOMPTARGET_PLUGINS");
  settings_reread_for_test();
}

/* ---- memory kinds: the plugin decides ------------------------------------ */

void *llvm_omp_target_alloc_host(size_t size, int device_num);
void *llvm_omp_target_alloc_shared(size_t size, int device_num);
void llvm_omp_target_free_host(void *ptr, int device_num);

static int alloc_shared_64_on_0(void) {
  return llvm_omp_target_alloc_shared(64, 0) != NULL;
}

static void test_alloc_kind_reaches_the_plugin(void **state) {
  (void)state;
  char path[PATH_MAX];
  setenv("LIBOMPTARGET_PLUGINS", fixture("hostmem", path, sizeof path), 1);
  settings_reread_for_test();
  assert_int_equal(devices_count(), 1);
  void *keep = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(keep);
  int32_t *kind = dlsym(keep, "fixture_last_alloc_kind");
  assert_non_null(kind);

  void *host = llvm_omp_target_alloc_host(64, 0);
  assert_non_null(host); /* this plugin has host memory: libomptarget asks */
  assert_int_equal(*kind, TARGET_ALLOC_HOST);
  /* the device reaches its host memory, not other host memory; the host
   * (device 1 here) reaches everything */
  int local = 0;
  assert_int_equal(omp_target_is_accessible((char *)host + 8, 56, 0), 1);
  assert_int_equal(omp_target_is_accessible(host, 65, 0), 0);
  assert_int_equal(omp_target_is_accessible(&local, sizeof local, 0), 0);
  assert_int_equal(omp_target_is_accessible(&local, sizeof local, 1), 1);
  llvm_omp_target_free_host(host, 0);
  assert_int_equal(omp_target_is_accessible(host, 8, 0), 0);
  void *dflt = omp_target_alloc(16, 0);
  assert_non_null(dflt);
  assert_int_equal(*kind, TARGET_ALLOC_DEFAULT);
  omp_target_free(dflt, 0);

  /* refused by the plugin: the routine, the kind, the device and the
   * plugin's own reason */
  int got = -1;
  char *printed = capture_stderr(alloc_shared_64_on_0, &got);
  assert_int_equal(got, 0);
  assert_int_equal(*kind, TARGET_ALLOC_SHARED);
  assert_contains(printed, "llvm_omp_target_alloc_shared(64 bytes, device 0):"
                           " plugin hostmem gives no shared memory");
  assert_contains(printed, "this fixture has no shared memory");

  devices_release_all();
  plugins_unload_all();
  dlclose(keep);
  unsetenv("LIBOMPTARGET_PLUGINS");
  settings_reread_for_test();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compliance_accepts_a_full_table),
      cmocka_unit_test(test_compliance_names_each_missing_required_function),
      cmocka_unit_test(test_compliance_refuses_another_abi_version),
      cmocka_unit_test(test_folder_order_simdevice_cuda_then_alphabetical),
      cmocka_unit_test(test_open_checks_real_files),
      cmocka_unit_test(test_discovery_from_env_list_numbers_devices),
      cmocka_unit_test(test_alloc_kind_reaches_the_plugin),
  };
  return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
