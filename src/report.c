/*
 * report.c - LIBOMPTARGET_DEBUG / LIBOMPTARGET_INFO / OMP_TARGET_OFFLOAD,
 * the per-thread cause of a failure, and the failure policy.
 *
 * Thread safety: settings are read from the environment once (pthread_once);
 * the info flags may change later through __tgt_set_info_flag, so they are an
 * atomic. The cause buffer is thread-local. Output lines are written with one
 * fprintf call each so lines of different threads do not interleave.
 */
#include "report.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "device.h"
#include "plugins.h"

/* Present only in gcov-instrumented builds. */
extern void __gcov_dump(void) __attribute__((weak));

static pthread_once_t report_once = PTHREAD_ONCE_INIT;
static int debug_level;
static _Atomic uint32_t info_flags;
static enum offload_policy policy;

static __thread char last_error[2048];

static void report_read_env(void) {
  const char *s = getenv("LIBOMPTARGET_DEBUG");
  debug_level = s ? atoi(s) : 0;
  s = getenv("LIBOMPTARGET_INFO");
  /* LLVM accepts decimal or 0x-prefixed values; -1 means everything. */
  atomic_store(&info_flags, s ? (uint32_t)strtol(s, NULL, 0) : 0);
  s = getenv("OMP_TARGET_OFFLOAD");
  policy = POLICY_DEFAULT;
  if (s && !strcasecmp(s, "mandatory"))
    policy = POLICY_MANDATORY;
  else if (s && !strcasecmp(s, "disabled"))
    policy = POLICY_DISABLED;
}

void report_init(void) { pthread_once(&report_once, report_read_env); }

int report_debug_enabled(void) {
  report_init();
  return debug_level > 0;
}

uint32_t report_info_flags(void) {
  report_init();
  return atomic_load_explicit(&info_flags, memory_order_relaxed);
}

void report_set_info_flags(uint32_t flags) {
  report_init();
  atomic_store(&info_flags, flags);
}

enum offload_policy report_policy(void) {
  report_init();
  return policy;
}

static void report_vprint(const char *prefix, const char *fmt, va_list ap) {
  char line[4096];
  vsnprintf(line, sizeof line, fmt, ap);
  size_t n = strlen(line);
  while (n && line[n - 1] == '\n')
    line[--n] = '\0';
  fprintf(stderr, "%s%s\n", prefix, line);
}

void report_debug(const char *fmt, ...) {
  if (!report_debug_enabled())
    return;
  va_list ap;
  va_start(ap, fmt);
  report_vprint("omptarget --> ", fmt, ap);
  va_end(ap);
}

void report_info(uint32_t bit, const char *fmt, ...) {
  if (!(report_info_flags() & bit))
    return;
  va_list ap;
  va_start(ap, fmt);
  report_vprint("omptarget info: ", fmt, ap);
  va_end(ap);
}

void report_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report_vprint("omptarget error: ", fmt, ap);
  va_end(ap);
}

void report_error_set(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t used = strlen(last_error);
  if (used == 0)
    snprintf(last_error, sizeof last_error, "%s", msg);
  else if (used + 3 < sizeof last_error)
    snprintf(last_error + used, sizeof last_error - used, "; %s", msg);
  report_debug("%s", msg);
}

const char *report_error_get(void) { return last_error; }

void report_error_clear(void) { last_error[0] = '\0'; }

const char *report_location(const ident_t *loc, char *buf, size_t len) {
  /* psource is ";file;function;line;column;;" */
  if (!loc || !loc->psource || loc->psource[0] != ';') {
    snprintf(buf, len, "unknown location");
    return buf;
  }
  char file[512] = "", func[256] = "";
  int line = 0, col = 0;
  const char *p = loc->psource + 1;
  const char *q = strchr(p, ';');
  if (q) {
    snprintf(file, sizeof file, "%.*s", (int)(q - p), p);
    p = q + 1;
    q = strchr(p, ';');
    if (q) {
      snprintf(func, sizeof func, "%.*s", (int)(q - p), p);
      sscanf(q + 1, "%d;%d", &line, &col);
    }
  }
  if (!file[0] || !strcmp(file, "unknown"))
    snprintf(buf, len, "unknown location");
  else if (func[0])
    snprintf(buf, len, "%s:%d:%d (in %s)", file, line, col, func);
  else
    snprintf(buf, len, "%s:%d:%d", file, line, col);
  return buf;
}

void report_offload_failure(const ident_t *loc, const char *construct,
                            struct device *dev) {
  char where[1024];
  report_location(loc, where, sizeof where);
  const char *cause = report_error_get();
  if (!cause[0])
    cause = "no cause was recorded";

  /* As in LLVM, `default` means mandatory as soon as a device exists;
   * only `disabled`, or `default` without any device, falls back. */
  enum offload_policy policy = report_policy();
  bool mandatory = policy == POLICY_MANDATORY ||
                   (policy == POLICY_DEFAULT && devices_count() > 0);
  if (!mandatory) {
    report_info(INFO_KERNEL_ARGS | INFO_PLUGIN_KERNEL,
                "%s at %s: %s; the host version runs instead", construct,
                where, cause);
    report_error_clear();
    return;
  }
  fprintf(stderr,
          "omptarget fatal error: %s at %s failed while offloading is "
          "mandatory (%s)\n"
          "omptarget fatal error: cause: %s\n",
          construct, where,
          policy == POLICY_MANDATORY
              ? "OMP_TARGET_OFFLOAD=mandatory"
              : "OMP_TARGET_OFFLOAD is not set and a device exists",
          cause);
  const char *rejected = plugins_rejections();
  if (rejected && rejected[0])
    fprintf(stderr, "omptarget fatal error: rejected plugins and images:\n%s",
            rejected);
  /* trylock: the program is ending; never wait on a lock another thread
   * may hold forever */
  if (dev && pthread_mutex_trylock(&dev->map.lock) == 0) {
    char title[64];
    snprintf(title, sizeof title, "mapping table of device %d", dev->id);
    mapping_dump(&dev->map, stderr, title);
    pthread_mutex_unlock(&dev->map.lock);
  }
  /* _exit, not exit: the failing construct may run in a libomp helper
   * thread (target nowait), and exit() from there deadlocks in libomp's own
   * shutdown, which waits for that very thread. LLVM aborts here; the issue
   * asks for status 1. Device processes notice that the host is gone. */
  fflush(NULL);
  if (__gcov_dump) /* coverage builds: keep the counters of this run */
    __gcov_dump();
  _exit(1);
}
