/*
 * launcher.c - how a device process of the plugin's machine is run.
 *
 * The plain plugin runs the server directly (its machine is the host's).
 * The ppc64le plugin (SIMDEVICE_DEVICE_PPC64LE, plugin_internal.h) runs its
 * ppc64le server
 *   - directly on a ppc64le host, or when SIMDEVICE_QEMU=direct (the kernel
 *     runs ppc64le programs through binfmt_misc);
 *   - else as `qemu-ppc64le -L <sysroot> -U LD_PRELOAD <server>`: qemu found
 *     on PATH (or SIMDEVICE_QEMU, a command or path), the sysroot
 *     SIMDEVICE_PPC64LE_SYSROOT or /usr/powerpc64le-linux-gnu, which must
 *     hold the ppc64le dynamic loader. A host LD_PRELOAD (stdbuf, a
 *     sanitizer) names x86-64 libraries that the guest's loader would try to
 *     load, hence -U.
 * Without a way to run it, the plugin has zero devices and
 * launcher_prepare's reason says why (libomptarget shows it under
 * LIBOMPTARGET_INFO and in a mandatory-offload failure).
 *
 * Locking: the words and the verdict are written once under a pthread_once
 * and only read afterwards.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plugin_internal.h"

#define MAX_WORDS 8
static pthread_once_t prepare_once = PTHREAD_ONCE_INIT;
static const char *words[MAX_WORDS + 1];
static char verdict[SIMDEV_MESSAGE_SIZE]; /* "" when devices can run */

#if DEVICE_FOREIGN
#define DEFAULT_SYSROOT "/usr/powerpc64le-linux-gnu"
static char qemu_path[4096];
static char sysroot[4096];

/* Finds `cmd` on PATH (or takes it as a path when it holds a '/'). */
static int find_command(const char *cmd, char *out, size_t len) {
  if (strchr(cmd, '/') != NULL) {
    snprintf(out, len, "%s", cmd);
    return access(out, X_OK);
  }
  for (const char *p = plugin_settings()->search_path; *p != '\0';) {
    size_t n = strcspn(p, ":");
    snprintf(out, len, "%.*s/%s", (int)n, p, cmd);
    if (access(out, X_OK) == 0)
      return 0;
    p += n + (p[n] == ':');
  }
  return -1;
}

static void prepare(void) {
  const struct plugin_settings *set = plugin_settings();
  char dir[PATH_MAX];
  if (process_runtime_dir(dir, sizeof dir) != 0) { /* no ppc64le server */
    __tgt_rtl_error err;
    plugin_error_take(&err);
    snprintf(verdict, sizeof verdict, "no ppc64le devices: %.400s",
             err.message);
    return;
  }
  if (set->qemu != NULL && strcmp(set->qemu, "direct") == 0)
    return; /* binfmt_misc runs it: no words */
  const char *qemu = set->qemu != NULL ? set->qemu : "qemu-ppc64le";
  if (find_command(qemu, qemu_path, sizeof qemu_path) != 0) {
    snprintf(verdict, sizeof verdict,
             "simdevice-ppc64le: no ppc64le devices: `%.200s` is not %s (the "
             "ppc64le device process runs under qemu user mode: install "
             "qemu-user, or set SIMDEVICE_QEMU)",
             qemu, strchr(qemu, '/') ? "an executable file" : "on PATH");
    return;
  }
  snprintf(sysroot, sizeof sysroot, "%s",
           set->sysroot != NULL ? set->sysroot : DEFAULT_SYSROOT);
  char loader[4200];
  snprintf(loader, sizeof loader, "%s/lib64/ld64.so.2", sysroot);
  if (access(loader, R_OK) != 0) {
    snprintf(loader, sizeof loader, "%s/lib/ld64.so.2", sysroot);
    if (access(loader, R_OK) != 0) {
      snprintf(verdict, sizeof verdict,
               "simdevice-ppc64le: no ppc64le devices: the sysroot %.200s has "
               "no ppc64le dynamic loader (lib/ld64.so.2): install "
               "libc6-dev-ppc64el-cross, or set SIMDEVICE_PPC64LE_SYSROOT",
               sysroot);
      return;
    }
  }
  int n = 0;
  words[n++] = qemu_path;
  words[n++] = "-L";
  words[n++] = sysroot;
  words[n++] = "-U";
  words[n++] = "LD_PRELOAD";
  words[n] = NULL;
}
#else
static void prepare(void) {} /* the host runs the device process */
#endif

int launcher_prepare(char *why, size_t len) {
  pthread_once(&prepare_once, prepare);
  if (verdict[0] == '\0')
    return 0;
  snprintf(why, len, "%s", verdict);
  return -1;
}

const char *const *launcher_words(void) {
  pthread_once(&prepare_once, prepare);
  return words;
}
