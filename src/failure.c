/*
 * failure.c - the failure policy (failure.h): decide what a failed construct
 * does; under mandatory offload, print the report and end the program.
 *
 * Before the mandatory _exit(1) it removes the host libomp's registration
 * file, which libomp's skipped exit handler would have removed.
 *
 * Locking: no state of its own. The mapping table is printed under
 * dev->map.lock taken with trylock: the program is ending, and another
 * thread may hold that lock forever.
 */
#include "failure.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device.h"
#include "plugins.h"
#include "report.h"

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

void failure_apply_policy(const ident_t *loc, const char *construct,
                          struct device *dev) {
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
  /* Plugins without devices (no driver, no GPU, no qemu) matter when no
   * device exists at all, or when an image was refused (the device that
   * would take it may be the missing one); otherwise they are said under
   * LIBOMPTARGET_INFO 0x10. */
  const char *idle = plugins_without_devices();
  if ((devices_count() == 0 || (rejected && rejected[0])) && idle && idle[0])
    fprintf(stderr, "omptarget fatal error: plugins without devices:\n%s",
            idle);
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
  unregister_host_libomp();
  if (__gcov_dump) /* coverage builds: keep the counters of this run */
    __gcov_dump();
  _exit(1);
}
