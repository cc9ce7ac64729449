/*
 * test_clang_image.c - a device image produced by a real clang (clang-14,
 * -fopenmp-targets=x86_64-pc-linux-gnu -save-temps): entries resolved
 * through the image's own .omp_offloading.entry.* table, a declare-target
 * global that clang-13/14 do not export by name, and a teams/parallel kernel
 * run through the device runtime. Skipped when clang-14 is not installed.
 */
#include <glob.h>

#include "simdev_test.h"

static const char program[] =
    "int gv = 5;\n"
    "#pragma omp declare target(gv)\n"
    "int main(void) {\n"
    "  double y[1024];\n"
    "#pragma omp target teams distribute parallel for map(tofrom: y[0:1024])\n"
    "  for (int i = 0; i < 1024; i++) y[i] = 2.0 * i + gv;\n"
    "  return (int)y[1];\n"
    "}\n";

static void test_clang14_image_runs(void **state) {
  (void)state;
  if (access("/usr/bin/clang-14", X_OK) != 0)
    skip();
#if !defined(__x86_64__)
  /* The image is x86-64 (a ppc64le build runs clang-14's ppc64le images in
   * tests/ppc64le/check.sh's programs instead). */
  skip();
#endif
  char dir[] = "/tmp/simdev_clang_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/p.c", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(program, f);
  fclose(f);
  assert_int_equal(run_cmd("cd %s && clang-14 -O1 -fopenmp "
                           "-fopenmp-targets=x86_64-pc-linux-gnu -save-temps "
                           "p.c -o p >build.log 2>&1",
                           dir),
                   0);
  glob_t g;
  snprintf(path, sizeof path, "%s/*-openmp-x86_64-pc-linux-gnu", dir);
  assert_int_equal(glob(path, 0, NULL, &g), 0);
  size_t size = 0;
  unsigned char *bytes = read_file(g.gl_pathv[0], &size);
  assert_non_null(bytes);
  /* The kernel's name depends on the file's inode: ask the image. */
  char cmd[512], kname[256] = "";
  snprintf(cmd, sizeof cmd,
           "nm -D --defined-only %s | sed -n 's/.*\\.omp_offloading\\.entry\\."
           "\\(__omp_offloading_.*\\)$/\\1/p'",
           g.gl_pathv[0]);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  assert_non_null(fgets(kname, sizeof kname, p));
  pclose(p);
  kname[strcspn(kname, "\n")] = '\0';
  globfree(&g);

  char ids[2];
  __tgt_offload_entry entries[2] = {{&ids[0], kname, 0, 0, 0},
                                    {&ids[1], "gv", sizeof(int), 0, 0}};
  __tgt_device_image image = {bytes, bytes + size, entries, entries + 2};
  assert_int_equal(__tgt_rtl_is_valid_binary(&image), 1);
  assert_int_equal(__tgt_rtl_init_device(0), OFFLOAD_SUCCESS);
  __tgt_target_table *t = __tgt_rtl_load_binary(0, &image);
  assert_non_null(t);
  assert_non_null(t->EntriesBegin[0].addr);
  assert_non_null(t->EntriesBegin[1].addr); /* gv: only via the entry table */
  int gv = 0;
  assert_int_equal(__tgt_rtl_data_retrieve(0, &gv, t->EntriesBegin[1].addr,
                                           sizeof gv),
                   OFFLOAD_SUCCESS);
  assert_int_equal(gv, 5);
  gv = 7;
  assert_int_equal(__tgt_rtl_data_submit(0, t->EntriesBegin[1].addr, &gv,
                                         sizeof gv),
                   OFFLOAD_SUCCESS);
  double *dy = __tgt_rtl_data_alloc(0, 1024 * sizeof(double), NULL,
                                    TARGET_ALLOC_DEVICE);
  assert_non_null(dy);
  void *args[1] = {dy};
  ptrdiff_t offsets[1] = {0};
  assert_int_equal(__tgt_rtl_run_target_team_region(0, t->EntriesBegin[0].addr,
                                                    args, offsets, 1, 4, 2, 1024),
                   OFFLOAD_SUCCESS);
  static double y[1024];
  assert_int_equal(__tgt_rtl_data_retrieve(0, y, dy, sizeof y), OFFLOAD_SUCCESS);
  for (int i = 0; i < 1024; i++)
    assert_true(y[i] == 2.0 * i + 7);
  assert_int_equal(__tgt_rtl_data_delete(0, dy), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_unload_binary(0, &image), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_deinit_plugin(), OFFLOAD_SUCCESS);
  free(bytes);
  run_cmd("rm -rf %s", dir);
}

int main(void) {
  use_runtime_or_system_libomp();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clang14_image_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
