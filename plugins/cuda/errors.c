/*
 * errors.c - the plugin's last error, kept per host thread (no lock): a
 * failing call records its cause here and libomptarget reads it right after
 * with __tgt_rtl_get_last_error on the same thread. Also the
 * LIBOMPTARGET_INFO flags the plugin prints under.
 *
 * Locking: `last_error` is thread-local; `info_flags` is an atomic read once
 * from the environment (under pthread_once) and then by set_info_flag.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

static __thread __tgt_rtl_error last_error;

void cuda_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error.message, sizeof last_error.message, fmt, ap);
  va_end(ap);
  last_error.fault_addr = 0;
  last_error.fault_kind = 0;
  last_error.device_lost = 0;
}

int cuda_driver_error(const struct cuda_driver *drv, CUresult rc,
                      const char *fmt, ...) {
  char what[300], text[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  driver_result_text(drv, rc, text, sizeof text);
  cuda_error("cuda: %s failed: %s", what, text);
  return -1;
}

void cuda_error_take(__tgt_rtl_error *out) {
  *out = last_error;
  memset(&last_error, 0, sizeof last_error);
}

static pthread_once_t info_once = PTHREAD_ONCE_INIT;
static _Atomic uint32_t info_flags;

static void read_info_env(void) {
  atomic_store(&info_flags, cuda_settings()->info_flags);
}

uint32_t cuda_info_flags(void) {
  pthread_once(&info_once, read_info_env);
  return atomic_load(&info_flags);
}

void cuda_set_info_flags(uint32_t flags) {
  pthread_once(&info_once, read_info_env);
  atomic_store(&info_flags, flags);
}

void cuda_info(uint32_t bits, const char *fmt, ...) {
  if (!(cuda_info_flags() & bits))
    return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "omptarget info: cuda: %s\n", line); /* one call per line */
}
