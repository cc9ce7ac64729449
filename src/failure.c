/*
 * failure.c - the failure policy (failure.h): decide what a failed construct
 * does; under mandatory offload, print the report and end the program.
 *
 * Before the mandatory _exit(1) it removes the host libomp's registration
 * file, which libomp's skipped exit handler would have removed.
 *
 * Locking: no state of its own (the table kept at the failure is report.c's,
 * per thread, kept there by the mapping layer: mapping_keep_for_report); the
 * live table is printed only if its lock is free (mapping_dump_if_free): the
 * program is ending, and another thread may hold that lock forever.
 */
#include "failure.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "async.h"
#include "check_findings.h"
#include "device.h"
#include "mapping_ops.h"
#include "map_args.h"
#include "plugins.h"
#include "report.h"
#include "trace.h"

/* Present only in gcov-instrumented builds. */
extern void __gcov_dump(void) __attribute__((weak));

/* Whether the text of a libomp registration file (`0x<address of the flag>-
 * <flag value>-<library>`) names a flag of a libomp loaded in this process
 * holding that value: only our own libomp's file is removed. */
static bool is_own_libomp_registration(const char *text) {
  void *flag_addr = NULL;
  unsigned long flag_value = 0;
  Dl_info where;
  if (sscanf(text, "%p-%lx-", &flag_addr, &flag_value) != 2 ||
      dladdr(flag_addr, &where) == 0 || where.dli_fname == NULL ||
      strstr(where.dli_fname, "libomp") == NULL)
    return false;
  return *(volatile unsigned long *)flag_addr == flag_value;
}

/* libomp registers itself in /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid> (in
 * /tmp when shared memory is unavailable) and removes the file in its exit
 * handler, which _exit skips: without this every mandatory failure left one
 * file behind. Best effort; nothing here can fail the exit. */
static void unregister_host_libomp(void) {
  char name[64], path[96], text[256];
  snprintf(name, sizeof name, "__KMP_REGISTERED_LIB_%d_%d", (int)getpid(),
           (int)getuid());
  const char *dirs[] = {"/dev/shm/", "/tmp/"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    snprintf(path, sizeof path, "%s%s", dirs[i], name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      continue;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = '\0';
    if (is_own_libomp_registration(text))
      unlink(path);
  }
}

/* Whether the program was compiled without -g: clang then gives no source
 * location (";unknown;unknown;0;0;;") and no map names. */
static bool lacks_debug_info(const ident_t *loc, const struct map_args *a) {
  char where[64];
  return !strcmp(report_location(loc, where, sizeof where),
                 "unknown location") &&
         (!a || a->num == 0 || !a->names);
}

/* The report of a failed construct, each line starting with `prefix`. */
static void print_failure(const char *prefix, const char *construct,
                          const char *where, const char *cause,
                          const char *why, struct device *dev,
                          const struct map_args *a, bool no_debug_info) {
  fprintf(stderr, "%s%s at %s failed%s\n%scause: %s\n", prefix, construct,
          where, why, prefix, cause);
  /* the arguments as the compiler passed them (the table alone does not
   * show what the construct asked for) */
  if (a && a->num > 0 && a->base && a->begin && a->sizes && a->types) {
    fprintf(stderr, "%sthe construct's %d argument%s:\n", prefix, a->num,
            a->num == 1 ? "" : "s");
    for (int32_t i = 0; i < a->num; i++) {
      char type[160], name[128];
      fprintf(stderr,
              "  [%d] %s(%s) base=%p begin=%p size=%" PRId64
              " type=0x%" PRIx64 "\n",
              i, map_type_string(a->types[i], type, sizeof type),
              maps_var_name(a, i, name, sizeof name)[0] ? name : "no name",
              a->base[i], a->begin[i],
              a->sizes[i], (uint64_t)a->types[i]);
    }
  }
  const char *rejected = plugins_rejections();
  if (rejected && rejected[0])
    fprintf(stderr, "%srejected plugins and images:\n%s", prefix, rejected);
  /* Plugins without devices (no driver, no GPU, no qemu) matter when no
   * device exists at all, or when an image was refused (the device that
   * would take it may be the missing one); otherwise they are said under
   * LIBOMPTARGET_INFO 0x10. */
  const char *idle = plugins_without_devices();
  if ((devices_count() == 0 || (rejected && rejected[0])) && idle && idle[0])
    fprintf(stderr, "%splugins without devices:\n%s", prefix, idle);
  /* The table as it was when the construct failed (kept by maps.c and
   * launch.c through mapping_keep_for_report before the undo removed the
   * construct's entries); else the table now. */
  const char *kept = report_failure_table();
  if (kept)
    fputs(kept, stderr);
  else if (dev) {
    char title[64];
    snprintf(title, sizeof title, "mapping table of device %d", dev->id);
    mapping_dump_if_free(&dev->map, stderr, title);
  }
  static atomic_flag said_g = ATOMIC_FLAG_INIT;
  if (no_debug_info && !atomic_flag_test_and_set(&said_g))
    fprintf(stderr, "%snote: the program has no debug information: compile "
                    "it with -g for variable names and source locations\n",
            prefix);
}

/* What a GPU does with each rule's bug, and its fix (the finding's text). */
static const struct {
  const char *rule, *gpu, *fix;
} finding_texts[] = {
    {"past-end-of-mapping",
     "the kernel reads or writes past the device copy: a neighbour's data or "
     "an illegal-address error, depending on what lies there",
     "map the whole range the kernel uses (a section's length is a count of "
     "elements: p[0:n], not p[0:n-1])"},
    {"before-start-of-mapping",
     "the kernel reads or writes before the device copy: a neighbour's data "
     "or an illegal-address error, depending on what lies there",
     "map the section from the first element the kernel uses (p[lo:n] "
     "starts at p[lo])"},
    {"inside-mapping",
     "the access faults or corrupts the device copy",
     "check the section's bounds and the map type"},
    {"host-pointer-of-mapped",
     "a host address is not a device address: an illegal-address error or "
     "garbage",
     "use the mapped variable in the region (not a host pointer saved "
     "before it), or map the data the pointer points to"},
    {"host-address",
     "the kernel follows a host pointer: an illegal-address error or garbage "
     "(LLVM's CPU offload reads host memory and hides it)",
     "map what the pointer points to (map(p[0:n])), or a struct's pointer "
     "member with its section (map(s.p[0:n]))"},
    {"host-address-unmapped",
     "the kernel uses host memory nobody mapped: an illegal-address error",
     "map the variable the kernel uses"},
    {"pointer-data-unmapped",
     "a pointer without a map of its data keeps its host value: an "
     "illegal-address error",
     "map the pointee with a section: map(p[0:n])"},
    {"past-by-value-pointer",
     "a device pointer used past its data: an illegal-address error",
     "keep the data mapped while its device address is used"},
    {"freed-device-copy",
     "the device copy was freed: the kernel reads whatever now lives there",
     "keep the data mapped (target data / enter data) as long as kernels "
     "use its device address"},
    {"host-function-call",
     "device code cannot call a host function: the launch fails",
     "declare the function `declare target` (or `declare target indirect` "
     "for a function pointer)"},
};

/* The region's line and kernel, from the kernel's entry name
 * (__omp_offloading_<dev>_<file id>_<function>_l<line>) and the
 * construct's file. */
static void kernel_location(const char *kernel, const char *file, char *buf,
                            size_t len) {
  const char *l = kernel ? strrchr(kernel, '_') : NULL;
  int line = 0;
  if (l && l[1] == 'l' && sscanf(l + 2, "%d", &line) == 1 && line > 0 &&
      file && file[0] && strcmp(file, "unknown"))
    snprintf(buf, len, "%s:%d (kernel %s)", file, line, kernel);
  else
    snprintf(buf, len, "%s", kernel && kernel[0] ? kernel : "");
}

/* A failed construct is a finding of the plain run (check "guard": the
 * guard pages and the separate device process), for simtarget-check. */
static void write_finding(const ident_t *loc, const char *construct,
                          const char *where, const char *cause) {
  const struct report_finding *f = report_finding_get();
  struct source_location src;
  report_location_parts(loc, &src);
  char kernel[900], place[1100], message[2300];
  kernel_location(f->kernel, src.file, kernel, sizeof kernel);
  snprintf(place, sizeof place, "%s", where);
  snprintf(message, sizeof message, "%s failed: %s", construct, cause);
  struct check_finding out = {
      .check = "guard",
      .rule = f->rule[0] ? f->rule : "construct-failed",
      .variable = f->variable[0] ? f->variable : NULL,
      .construct = strcmp(where, "unknown location") ? place : NULL,
      .kernel = kernel[0] ? kernel : NULL,
      .message = message,
  };
  for (size_t i = 0; i < sizeof finding_texts / sizeof finding_texts[0]; i++)
    if (!strcmp(out.rule, finding_texts[i].rule)) {
      out.gpu = finding_texts[i].gpu;
      out.fix = finding_texts[i].fix;
    }
  if (check_finding_write(&out) < 0)
    fprintf(stderr, "omptarget warning: cannot append the finding to %s "
                    "(%s=%s)\n",
            getenv(CHECK_REPORT_ENV), CHECK_REPORT_ENV,
            getenv(CHECK_REPORT_ENV));
}

/* How long a construct that failed under another thread's exit() waits for
 * the process to end before it is reported after all (an exit that hangs). */
#define EXIT_ELSEWHERE_WAIT_S 10

/* Another host thread is in exit(): it unloaded the device code and
 * releases the devices, so this construct failed because the program is
 * ending, not through a fault of its own. A fatal error here would print a
 * misleading cause ("not a kernel of any loaded image") and replace the
 * status the program gave exit() on the other thread; this thread waits to
 * be ended with the process instead, as it would have been without the
 * failure. Returns only if the process is still there after the wait. */
static void wait_for_exit_elsewhere(void) {
  struct timespec step = {0, 50 * 1000 * 1000};
  for (int i = 0; i < EXIT_ELSEWHERE_WAIT_S * 20; i++)
    nanosleep(&step, NULL);
}

void failure_apply_policy(const ident_t *loc, const char *construct,
                          struct device *dev, const struct map_args *a) {
  char where[1024];
  report_location(loc, where, sizeof where);
  const char *cause = report_error_get();
  if (!cause[0])
    cause = "no cause was recorded";

  /* As in LLVM, `default` means mandatory as soon as a device exists;
   * only `disabled`, or `default` without any device, falls back. */
  enum offload_policy policy = settings_get()->offload;
  bool mandatory = policy == POLICY_MANDATORY ||
                   (policy == POLICY_DEFAULT && devices_count() > 0);
  if (!mandatory) {
    report_info(INFO_KERNEL_ARGS | INFO_PLUGIN_KERNEL,
                "%s at %s: %s; the host version runs instead", construct,
                where, cause);
    report_error_clear();
    return;
  }
  const char *why = policy == POLICY_MANDATORY
                        ? " while offloading is mandatory "
                          "(OMP_TARGET_OFFLOAD=mandatory)"
                        : " while offloading is mandatory (OMP_TARGET_OFFLOAD "
                          "is not set and a device exists)";
  bool no_debug_info = lacks_debug_info(loc, a);
  write_finding(loc, construct, where, cause);
  if (settings_get()->keep_going) {
    /* Compiler teams (issue 16): every diagnosis of a test file in one run.
     * The construct is reported and the program goes on as LLVM's host
     * fallback would: a region's host version runs (its entry point
     * returns failure), a data construct leaves the host's data alone. */
    print_failure("omptarget error: ", construct, where, cause, why, dev, a,
                  no_debug_info);
    fprintf(stderr, "omptarget error: SIMTARGET_KEEP_GOING=1: the program "
                    "goes on; %s\n",
            !strcmp(construct, "target") || !strcmp(construct, "target nowait")
                ? "the region's host version runs instead"
                : "the construct is skipped on the device");
    char note[1200];
    snprintf(note, sizeof note, "%s at %s", construct, where);
    trace_note("keep_going", note);
    report_error_clear();
    return;
  }
  if (async_exit_started_elsewhere()) {
    wait_for_exit_elsewhere();
    fprintf(stderr, "omptarget fatal error: another thread began the "
                    "program's exit %d s ago and the process has not ended; "
                    "this construct failed under it:\n",
            EXIT_ELSEWHERE_WAIT_S);
  }
  print_failure("omptarget fatal error: ", construct, where, cause, why, dev,
                a, no_debug_info);
  /* _exit, not exit: the failing construct may run in a libomp helper
   * thread (target nowait), and exit() from there deadlocks in libomp's own
   * shutdown, which waits for that very thread. LLVM aborts here; the issue
   * asks for status 1. Device processes notice that the host is gone. */
  fflush(NULL);
  unregister_host_libomp();
  if (__gcov_dump) /* coverage builds: keep the counters of this run */
    __gcov_dump();
  _exit(1);
}
