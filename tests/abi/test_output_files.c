/*
 * test_output_files.c - the files SIMTARGET_TRACE and LIBOMPTARGET_PROFILE
 * name (issue 30, items 16 and 17).
 *
 * A symbolic link, or a file owned by another user, planted where a user
 * points the variable, must not make the program overwrite another file:
 * it is refused with a warning naming the variable and the file. A write
 * that fails (disk full, /dev/full, a file size limit) is reported once,
 * naming the file, and leaves a trace of whole lines and a profile that is
 * still valid JSON.
 *
 * Each case runs this program again as a child (the variables are read
 * once, at start) that maps and launches scale_kernel (tests/abi/kernels.c)
 * ROUNDS times; its stderr comes back to the test.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi_image.h"
#include "omptarget.h"

#define N 64
#define ROUNDS 40

static const char scale_region;
static __tgt_offload_entry host_entries[] = {
    {(void *)&scale_region, "scale_kernel", 0, 0, 0},
};
static char self_path[4096];
static char dir[] = "/tmp/simtarget-outfiles-XXXXXX";

/* ------------------------------------------------------------ the child */

static int launch(void) {
  long x[N], y[N], n = N, k = 3;
  for (int i = 0; i < N; i++)
    x[i] = i;
  void *base[4] = {y, x, (void *)n, (void *)k};
  int64_t sizes[4] = {sizeof y, sizeof x, 0, 0};
  int64_t types[4] = {OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_FROM,
                      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_TO,
                      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL,
                      OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL};
  if (__tgt_target_teams(0, (void *)&scale_region, 4, base, base, sizes, types,
                         1, 1) != 0)
    return 1;
  for (int i = 0; i < N; i++)
    if (y[i] != i * k)
      return 1;
  return 0;
}

/* Launches ROUNDS times; with `fsize_limit`, files it writes from the
 * second launch on may not grow past that many bytes (SIGXFSZ ignored, so a
 * write past it fails with EFBIG), as on a full disk. The device process
 * started before: its shared memory is not a file of this limit. */
static int child(long fsize_limit) {
  struct abi_image kernels;
  if (abi_kernels_register(&kernels, self_path, host_entries, 1) != 0)
    return 90;
  int bad = launch();
  if (fsize_limit > 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {(rlim_t)fsize_limit, (rlim_t)fsize_limit};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
      return 91;
  }
  for (int r = 1; r < ROUNDS; r++)
    bad += launch();
  abi_image_unregister(&kernels);
  return bad ? 92 : 0;
}

/* ------------------------------------------------------------ the test */

struct child_env {
  const char *var, *path;
};

static void set_child_env(const void *ctx) {
  const struct child_env *e = ctx;
  unsetenv("SIMTARGET_TRACE");
  unsetenv("LIBOMPTARGET_PROFILE");
  setenv(e->var, e->path, 1);
  setenv("OMP_TARGET_OFFLOAD", "mandatory", 1);
}

/* Runs the child with `var`=`path` (and `fsize_limit`), its stderr in
 * `err`; returns its exit status. */
static int run_child(const char *var, const char *path, long fsize_limit,
                     char *err, size_t len) {
  char limit[32];
  snprintf(limit, sizeof limit, "%ld", fsize_limit);
  struct child_env e = {var, path};
  return abi_run_child(self_path, limit, set_child_env, &e, err, len);
}

static void path_in_dir(char *out, size_t len, const char *name) {
  snprintf(out, len, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

static void assert_file_text(const char *path, const char *text) {
  size_t size;
  char *got = abi_read_file(path, &size);
  assert_non_null(got);
  assert_string_equal(got, text);
  free(got);
}

/* How often `needle` occurs in `hay`. */
static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* A symlink another user planted at the output's name, pointing at a file
 * of this user: that file keeps its contents, and the warning names the
 * variable and link. Needs root to give the link away. */
static void check_symlink_refused(const char *var, const char *name) {
  if (geteuid() != 0)
    skip();
  char victim[256], link[256], err[8192], want[400];
  path_in_dir(victim, sizeof victim, "victim");
  path_in_dir(link, sizeof link, name);
  write_text(victim, "someone else's data\n");
  unlink(link);
  assert_int_equal(symlink(victim, link), 0);
  assert_int_equal(lchown(link, 65534, 65534), 0);
  assert_int_equal(run_child(var, link, 0, err, sizeof err), 0);
  assert_file_text(victim, "someone else's data\n");
  snprintf(want, sizeof want,
           "omptarget warning: %s=%s is a symbolic link of user 65534", var,
           link);
  if (!strstr(err, want))
    fail_msg("no warning \"%s\" in:\n%s", want, err);
  unlink(link);
  unlink(victim);
}

/* The program's own link (as /dev/stderr is root's) is followed: the output
 * lands in the file it names, and nothing is said. */
static void check_own_symlink_followed(const char *var, const char *name) {
  char target[256], link[256], err[8192];
  path_in_dir(target, sizeof target, "own-target");
  path_in_dir(link, sizeof link, name);
  unlink(target);
  unlink(link);
  assert_int_equal(symlink(target, link), 0);
  assert_int_equal(run_child(var, link, 0, err, sizeof err), 0);
  if (strstr(err, "omptarget warning"))
    fail_msg("a warning for the program's own link:\n%s", err);
  size_t size = 0;
  char *got = abi_read_file(target, &size);
  assert_non_null(got);
  assert_true(size > 0);
  free(got);
  unlink(link);
  unlink(target);
}

static void test_trace_follows_own_symlink(void **state) {
  (void)state;
  check_own_symlink_followed("SIMTARGET_TRACE", "own-trace.jsonl");
}

static void test_profile_follows_own_symlink(void **state) {
  (void)state;
  check_own_symlink_followed("LIBOMPTARGET_PROFILE", "own-profile.json");
}

static void test_trace_refuses_symlink(void **state) {
  (void)state;
  check_symlink_refused("SIMTARGET_TRACE", "trace.jsonl");
}

static void test_profile_refuses_symlink(void **state) {
  (void)state;
  check_symlink_refused("LIBOMPTARGET_PROFILE", "profile.json");
}

/* A file of another user at the output's name: kept, and said. Needs root
 * to give the file away. */
static void check_foreign_file_refused(const char *var, const char *name) {
  if (geteuid() != 0)
    skip();
  char path[256], err[8192], want[400];
  path_in_dir(path, sizeof path, name);
  write_text(path, "another user's file\n");
  assert_int_equal(chmod(path, 0666), 0);
  assert_int_equal(chown(path, 65534, 65534), 0);
  assert_int_equal(run_child(var, path, 0, err, sizeof err), 0);
  assert_file_text(path, "another user's file\n");
  snprintf(want, sizeof want, "omptarget warning: %s=%s is owned by user "
           "65534", var, path);
  if (!strstr(err, want))
    fail_msg("no warning \"%s\" in:\n%s", want, err);
  unlink(path);
}

static void test_trace_refuses_foreign_file(void **state) {
  (void)state;
  check_foreign_file_refused("SIMTARGET_TRACE", "foreign.jsonl");
}

static void test_profile_refuses_foreign_file(void **state) {
  (void)state;
  check_foreign_file_refused("LIBOMPTARGET_PROFILE", "foreign.json");
}

/* Every write fails: one warning, naming the file and the error. */
static void check_dev_full(const char *var) {
  char err[8192], want[200];
  assert_int_equal(run_child(var, "/dev/full", 0, err, sizeof err), 0);
  snprintf(want, sizeof want,
           "omptarget warning: %s=/dev/full: writing failed: No space left "
           "on device", var);
  if (count(err, want) != 1)
    fail_msg("not one warning \"%s\" in:\n%s", want, err);
}

static void test_trace_dev_full(void **state) {
  (void)state;
  check_dev_full("SIMTARGET_TRACE");
}

static void test_profile_dev_full(void **state) {
  (void)state;
  check_dev_full("LIBOMPTARGET_PROFILE");
}

/* The files grow past a size limit in the middle of the run: one warning
 * naming the file; the trace holds whole lines, the profile is JSON. */
static void check_size_limit(const char *var, const char *name,
                             const char *check_cmd) {
  char path[256], err[8192], want[400], cmd[700];
  path_in_dir(path, sizeof path, name);
  assert_int_equal(run_child(var, path, 6000, err, sizeof err), 0);
  snprintf(want, sizeof want, "omptarget warning: %s=%s: writing failed: "
           "File too large", var, path);
  if (count(err, want) != 1)
    fail_msg("not one warning \"%s\" in:\n%s", want, err);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size > 1000 && st.st_size <= 6000);
  snprintf(cmd, sizeof cmd, check_cmd, path);
  if (system(cmd) != 0)
    fail_msg("%s: %s failed", path, cmd);
  unlink(path);
}

static void test_trace_size_limit(void **state) {
  (void)state;
  check_size_limit("SIMTARGET_TRACE", "limited.jsonl",
                   "python3 -c 'import json,sys\n"
                   "t = open(sys.argv[1]).read()\n"
                   "assert t.endswith(\"\\n\")\n"
                   "[json.loads(l) for l in t.splitlines()]' %s");
}

static void test_profile_size_limit(void **state) {
  (void)state;
  check_size_limit("LIBOMPTARGET_PROFILE", "limited.json",
                   "python3 -c 'import json,sys\n"
                   "assert len(json.load(open(sys.argv[1]))) > 5' %s");
}

static int setup(void **state) {
  (void)state;
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return rmdir(dir);
}

int main(int argc, char **argv) {
  if (abi_self_path(self_path, sizeof self_path) != 0)
    return 1;
  if (argc > 2 && !strcmp(argv[1], "--child"))
    return child(atol(argv[2]));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trace_refuses_symlink),
      cmocka_unit_test(test_profile_refuses_symlink),
      cmocka_unit_test(test_trace_follows_own_symlink),
      cmocka_unit_test(test_profile_follows_own_symlink),
      cmocka_unit_test(test_trace_refuses_foreign_file),
      cmocka_unit_test(test_profile_refuses_foreign_file),
      cmocka_unit_test(test_trace_dev_full),
      cmocka_unit_test(test_profile_dev_full),
      cmocka_unit_test(test_trace_size_limit),
      cmocka_unit_test(test_profile_size_limit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
