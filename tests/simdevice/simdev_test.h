/*
 * simdev_test.h - helpers shared by the simdevice plugin drivers: build a
 * small device image with a C compiler, describe it as libomptarget would
 * (__tgt_device_image + legacy entries), find the device process.
 * Single-threaded test code: no locks.
 */
#ifndef SIMDEV_TEST_H
#define SIMDEV_TEST_H

#include <dirent.h>
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

#include "omptarget.h"
#include "omptarget_plugin.h"
#include "../../simdevice/protocol.h"

/* Kernels and globals of the hand-written test image. Each is published
 * through its own `.omp_offloading.entry.<name>` object, like clang 13-16. */
static const char kernel_source[] =
    "#include <stdint.h>\n"
    "#include <unistd.h>\n"
    "struct entry { void *addr; const char *name; uint64_t size;"
    " int32_t flags; int32_t reserved; };\n"
    "#define ENTRY(sym, sz) __attribute__((used)) struct entry entry_##sym"
    " __asm__(\".omp_offloading.entry.\" #sym) = {(void *)&sym, #sym, sz, 0, 0};\n"
    "void k_empty(void) {}\n"
    "void k_axpy(double *y, const double *x, long n, long a) {\n"
    "  for (long i = 0; i < n; i++) y[i] += a * x[i]; }\n"
    "void k_fill(double *p, long n) { for (long i = 0; i < n; i++) p[i] = (double)i; }\n"
    "void k_read(const double *p) { volatile double v = *p; (void)v; }\n"
    "void k_exit(long code) { _exit((int)code); }\n"
    "void k_sum_args(long *out, long a, long b, long c, long d, long e, long f,"
    " long g, long h) { *out = a + b + c + d + e + f + g + h; }\n"
    "int gvec[4] = {1, 2, 3, 4};\n"
    "void k_double_gvec(void) { for (int i = 0; i < 4; i++) gvec[i] *= 2; }\n"
    "void k_wait_read(const double *p, long ms) { usleep(ms * 1000);"
    " volatile double v = *p; (void)v; }\n"
    "ENTRY(k_empty, 0) ENTRY(k_axpy, 0) ENTRY(k_fill, 0) ENTRY(k_read, 0)\n"
    "ENTRY(k_exit, 0) ENTRY(k_sum_args, 0) ENTRY(k_double_gvec, 0)\n"
    "ENTRY(gvec, sizeof gvec) ENTRY(k_wait_read, 0)\n";

enum test_entry {
  E_EMPTY, E_AXPY, E_FILL, E_READ, E_EXIT, E_SUM_ARGS, E_DOUBLE_GVEC, E_GVEC,
  E_WAIT_READ, E_MISSING, E_COUNT
};
static const char *const entry_names[E_COUNT] = {
    "k_empty", "k_axpy", "k_fill", "k_read", "k_exit", "k_sum_args",
    "k_double_gvec", "gvec", "k_wait_read", "k_not_in_image"};

struct test_image {
  char dir[64];
  unsigned char *bytes;
  size_t size;
  char host_ids[E_COUNT];              /* stand-ins for host region ids */
  __tgt_offload_entry entries[E_COUNT];
  __tgt_device_image image;
};

static inline int run_cmd(const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  return system(cmd);
}

static inline unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n);
  if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

/* SIMDEVICE_TEST_CC when set (a cross build's tests run under qemu need the
 * cross compiler), else clang-14, else cc. */
static inline const char *c_compiler(void) {
  const char *cc = getenv("SIMDEVICE_TEST_CC");
  if (cc != NULL && *cc != '\0')
    return cc;
  return access("/usr/bin/clang-14", X_OK) == 0 ? "clang-14" : "cc";
}

/* Compiles the kernel library and describes it; fails the test on error. */
static inline void test_image_build(struct test_image *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->dir, sizeof t->dir, "/tmp/simdev_test_XXXXXX");
  assert_non_null(mkdtemp(t->dir));
  char path[128];
  snprintf(path, sizeof path, "%s/k.c", t->dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(kernel_source, f);
  fclose(f);
  assert_int_equal(run_cmd("%s -O1 -shared -fPIC -o %s/k.so %s", c_compiler(),
                           t->dir, path),
                   0);
  snprintf(path, sizeof path, "%s/k.so", t->dir);
  t->bytes = read_file(path, &t->size);
  assert_non_null(t->bytes);
  for (int i = 0; i < E_COUNT; i++)
    t->entries[i] = (__tgt_offload_entry){
        .addr = &t->host_ids[i], .name = (char *)entry_names[i],
        .size = i == E_GVEC ? 4 * sizeof(int) : 0, .flags = 0};
  t->image = (__tgt_device_image){t->bytes, t->bytes + t->size, t->entries,
                                  t->entries + E_COUNT};
}

static inline void test_image_free(struct test_image *t) {
  run_cmd("rm -rf %s", t->dir);
  free(t->bytes);
}

/* Makes the server use the device runtime built beside it, or the system
 * libomp when the device runtime is not built yet (test setups only). */
static inline void use_runtime_or_system_libomp(void) {
  char exe[PATH_MAX], rt[PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return;
  exe[n] = '\0';
  *strrchr(exe, '/') = '\0';
  snprintf(rt, sizeof rt, "%s/../../lib/simdevice/libomp.so.5", exe);
  if (access(rt, R_OK) != 0)
    setenv("SIMDEVICE_RUNTIME", "/usr/lib/x86_64-linux-gnu/libomp.so.5", 0);
}

/* Makes the plugin start the server built with the test hooks
 * (-DSIMTARGET_TEST_HOOKS: SIMDEVICE_TEST_GUARD_MPROTECT and
 * SIMDEVICE_TEST_SUPERVISOR_LATE_MS), which the shipped server lacks:
 * SIMDEVICE_TEST_HOOKS_SERVER when set (a cross build's shim under qemu),
 * else simdevice-server-hooks beside the real server. Before the plugin's
 * first call (it reads SIMDEVICE_SERVER once). */
static inline void use_hooks_server(void) {
  const char *shim = getenv("SIMDEVICE_TEST_HOOKS_SERVER");
  if (shim != NULL && *shim != '\0') {
    setenv("SIMDEVICE_SERVER", shim, 1);
    return;
  }
  char exe[PATH_MAX], server[PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return;
  exe[n] = '\0';
  *strrchr(exe, '/') = '\0';
  snprintf(server, sizeof server,
           "%s/../../lib/simdevice/simdevice-server-hooks", exe);
  setenv("SIMDEVICE_SERVER", server, 1);
}

/* 1 when /proc/self/fd holds the descriptor `link` names ("pipe:[N]"). */
static inline int own_pipe(const char *link) {
  DIR *d = opendir("/proc/self/fd");
  int found = 0;
  struct dirent *de;
  while (d != NULL && !found && (de = readdir(d)) != NULL) {
    char path[300], target[128];
    snprintf(path, sizeof path, "/proc/self/fd/%s", de->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n > 0) {
      target[n] = '\0';
      found = strcmp(target, link) == 0;
    }
  }
  if (d != NULL)
    closedir(d);
  return found;
}

/* The pid of one of our device processes, the newest (highest pid), or -1.
 * They are not our children (an orphaned supervisor forks them): ours are
 * those whose liveness pipe (fd 5, protocol.h) is a pipe we hold. */
static inline pid_t find_server(void) {
  DIR *d = opendir("/proc");
  pid_t best = -1;
  struct dirent *de;
  while (d != NULL && (de = readdir(d)) != NULL) {
    char path[300], buf[512], link[128];
    snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
      continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int pid = 0;
    char comm[64] = "", state;
    if (sscanf(buf, "%d (%63[^)]) %c", &pid, comm, &state) != 3 ||
        (strncmp(comm, "simdevice-serv", 14) != 0 &&
         strncmp(comm, "qemu-", 5) != 0) || /* under qemu user mode */
        state == 'Z' ||
        pid <= best)
      continue;
    snprintf(path, sizeof path, "/proc/%s/fd/%d", de->d_name,
             SIMDEV_FD_HOST_ALIVE);
    ssize_t len = readlink(path, link, sizeof link - 1);
    if (len <= 0)
      continue;
    link[len] = '\0';
    if (strncmp(link, "pipe:", 5) == 0 && own_pipe(link))
      best = pid;
  }
  if (d != NULL)
    closedir(d);
  return best;
}

/* The host's view of device `dev`'s control area (protocol.h): its memfd's
 * shared mapping in /proc/self/maps, or NULL when it has none (not started,
 * or the in-process mode). Read-only use: the plugin owns it. */
static inline const struct simdev_control *control_area(int32_t dev) {
  FILE *maps = fopen("/proc/self/maps", "r");
  const struct simdev_control *found = NULL;
  char line[512];
  while (maps != NULL && found == NULL && fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    char perms[8];
    if (strstr(line, "/memfd:simdevice-control") == NULL ||
        sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 ||
        strcmp(perms, "rw-s") != 0)
      continue;
    const struct simdev_control *c = (const struct simdev_control *)lo;
    if (c->magic == SIMDEV_PROTO_MAGIC && c->device_id == dev)
      found = c;
  }
  if (maps != NULL)
    fclose(maps);
  return found;
}

/* How many memory mappings of process `pid` lie in [base, base + size)
 * (lines of /proc/<pid>/maps); -1 if unreadable. */
static inline int mappings_within(pid_t pid, uint64_t base, uint64_t size) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *maps = fopen(path, "r");
  if (maps == NULL)
    return -1;
  int n = 0;
  while (fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo >= base &&
        hi <= base + size)
      n++;
  }
  fclose(maps);
  return n;
}

/* The threads of a process, from /proc/<pid>/status; -1 if unreadable. */
static inline int process_threads(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  int threads = -1;
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "Threads: %d", &threads) == 1)
      break;
  if (f != NULL)
    fclose(f);
  return threads;
}

/* One launch with 64-bit values as parameters (offsets 0). */
static inline int32_t launch(int32_t dev, void *entry, int n, const uint64_t *vals) {
  void *args[16];
  ptrdiff_t offsets[16] = {0};
  for (int i = 0; i < n; i++)
    args[i] = (void *)vals[i];
  return __tgt_rtl_run_target_team_region(dev, entry, args, offsets, n, 0, 0,
                                          0);
}

static inline __tgt_rtl_error last_error(int32_t dev) {
  __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(__tgt_rtl_get_last_error(dev, &err), OFFLOAD_SUCCESS);
  return err;
}

/* The drivers' common fixture: the test image built, device 0 started (the
 * start's message on stderr when it fails) and the image loaded. Returns
 * the table of its entries, or NULL. */
static inline __tgt_target_table *plugin_start(struct test_image *img) {
  test_image_build(img);
  if (__tgt_rtl_init_device(0) != OFFLOAD_SUCCESS) {
    fprintf(stderr, "init_device: %s\n", last_error(0).message);
    return NULL;
  }
  return __tgt_rtl_load_binary(0, &img->image);
}

/* Ends the plugin (every device process) and frees the image. */
static inline void plugin_stop(struct test_image *img) {
  assert_int_equal(__tgt_rtl_deinit_plugin(), OFFLOAD_SUCCESS);
  test_image_free(img);
}

#endif
