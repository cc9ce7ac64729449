/*
 * settings.c - the CUDA plugin's only reader of the environment. Each
 * variable is read and validated when the plugin starts (its first use, and
 * again when __tgt_rtl_init_plugin follows a deinit: a new plugin life sees
 * the environment of its start); a value that is not accepted gets one
 * warning on stderr naming the variable and what it accepts, and the
 * default is used. The README's environment table lists them with every
 * other component's.
 *
 * Locking: cuda_settings_reload runs under plugin_state_lock (plugin.c),
 * before any device exists; the first read otherwise happens under a
 * pthread_once. Readers only read. The info flags, which
 * __tgt_rtl_set_info_flag may change, live in errors.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

static struct cuda_settings settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

/* The variable's value, or NULL when unset or empty. */
static const char *read_var(const char *name) {
  const char *v = getenv(name);
  return v != NULL && *v != '\0' ? v : NULL;
}

/* A number in C syntax (decimal, 0x hex, 0 octal) that fits 32 bits; a
 * negative one (LLVM's -1 for "everything") wraps as LLVM's does. */
static uint32_t read_u32(const char *name, uint32_t dflt,
                         const char *dflt_text) {
  const char *v = read_var(name);
  if (v == NULL)
    return dflt;
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 0);
  if (errno != 0 || end == v || *end != '\0' || n < INT32_MIN ||
      n > UINT32_MAX) {
    fprintf(stderr,
            "cuda: %s=\"%.60s\" is not a 32-bit number (decimal or 0x hex);"
            " using %s\n",
            name, v, dflt_text);
    return dflt;
  }
  return (uint32_t)n;
}

static void read_settings(void) {
  memset(&settings, 0, sizeof settings);
  settings.info_flags = read_u32("LIBOMPTARGET_INFO", 0, "0");
  settings.device_rtl_debug = read_u32("LIBOMPTARGET_DEVICE_RTL_DEBUG", 0, "0");
  const char *driver = read_var("SIMTARGET_CUDA_DRIVER");
  if (driver != NULL && strlen(driver) >= sizeof settings.driver_path)
    fprintf(stderr,
            "cuda: SIMTARGET_CUDA_DRIVER is longer than %zu bytes; using"
            " the system's driver\n",
            sizeof settings.driver_path - 1);
  else if (driver != NULL)
    snprintf(settings.driver_path, sizeof settings.driver_path, "%s", driver);
}

const struct cuda_settings *cuda_settings(void) {
  pthread_once(&settings_once, read_settings);
  return &settings;
}

static void settings_read_later(void) {}

void cuda_settings_reload(void) {
  pthread_once(&settings_once, settings_read_later); /* no second first read */
  read_settings();
}
