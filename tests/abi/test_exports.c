/*
 * test_exports.c - the library answers to every name clang binaries ask for:
 * each SONAME in build/lib resolves, and every entry point that some clang
 * version references (clang-abi.md 2 and 11) is defined under VERS1.0.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static char lib_dir[4096];

static const char *const required[] = {
    "__tgt_register_lib", "__tgt_unregister_lib", "__tgt_register_requires",
    "__tgt_target_mapper", "__tgt_target_teams_mapper",
    "__tgt_target_nowait_mapper", "__tgt_target_teams_nowait_mapper",
    "__kmpc_push_target_tripcount_mapper", "__tgt_target_kernel",
    "__tgt_target_kernel_nowait", "__tgt_target_data_begin_mapper",
    "__tgt_target_data_end_mapper", "__tgt_target_data_update_mapper",
    "__tgt_target_data_begin_nowait_mapper",
    "__tgt_target_data_end_nowait_mapper",
    "__tgt_target_data_update_nowait_mapper", "__tgt_mapper_num_components",
    "__tgt_push_mapper_component", "__tgt_get_num_devices",
    "__tgt_target_data_begin", "__tgt_target_data_end",
    "__tgt_target_data_update", "__tgt_target", "__tgt_target_teams",
    "omp_target_alloc", "omp_target_free", "omp_target_memcpy",
    "omp_target_memcpy_rect", "omp_target_is_present",
    "omp_target_associate_ptr", "omp_target_disassociate_ptr",
    "omp_get_mapped_ptr", "omp_target_memset", "omp_get_num_devices",
    "omp_get_initial_device", "omp_get_device_num",
    "llvm_omp_target_alloc_device", "llvm_omp_target_free_device",
    /* OpenMP 6.0 (LLVM 22), and what libomp 21+ looks up by name */
    "omp_get_uid_from_device", "omp_get_device_from_uid",
    "omp_target_is_accessible", "__tgt_get_mem_resources", "__tgt_omp_alloc",
    "__tgt_omp_free",
};

static void test_every_soname_resolves(void **state) {
  (void)state;
  const char *names[] = {"libomptarget.so", "libomptarget.so.15",
                         "libomptarget.so.16", "libomptarget.so.19.1",
                         "libomptarget.so.22.1"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", lib_dir, names[i]);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      fail_msg("%s: %s", path, dlerror());
    assert_non_null(dlvsym(h, "__tgt_register_lib", "VERS1.0"));
    dlclose(h);
  }
}

static void test_entry_points_under_vers1(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof path, "%s/libomptarget.so", lib_dir);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(h);
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
    if (!dlvsym(h, required[i], "VERS1.0"))
      fail_msg("%s is not exported under VERS1.0", required[i]);
  /* internals stay hidden */
  assert_null(dlsym(h, "maps_data_begin"));
  assert_null(dlsym(h, "mapping_lookup"));
  assert_null(dlsym(h, "failure_apply_policy"));
  assert_null(dlsym(h, "settings_get"));
  dlclose(h);
}

int main(void) {
  ssize_t n = readlink("/proc/self/exe", lib_dir, sizeof lib_dir - 1);
  if (n < 0)
    return 1;
  lib_dir[n] = '\0';
  /* build/tests/abi/test_exports -> build/lib */
  for (int up = 0; up < 3; up++)
    *strrchr(lib_dir, '/') = '\0';
  strcat(lib_dir, "/lib");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_soname_resolves),
      cmocka_unit_test(test_entry_points_under_vers1),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
