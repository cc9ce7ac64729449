/*
 * errors.c - the plugin's "last error", kept per host thread (no lock): a
 * failing call records its cause here and libomptarget reads it right after
 * with __tgt_rtl_get_last_error on the same thread.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plugin_internal.h"

static __thread __tgt_rtl_error last_error;

static void record(uint64_t addr, int kind, int lost, const char *fmt,
                   va_list ap) {
  vsnprintf(last_error.message, sizeof last_error.message, fmt, ap);
  /* Messages start "simdevice: "; the ppc64le plugin's say which it is
   * (the tag's rest goes in after "simdevice", the end may be cut). */
  static const char tag[] = "simdevice: ";
  const char *rest = PLUGIN_TAG + 9;
  char *m = last_error.message;
  size_t len = strlen(m), ins = strlen(rest), room = sizeof last_error.message;
  if (ins > 0 && strncmp(m, tag, sizeof tag - 1) == 0) {
    if (len + ins >= room)
      len = room - 1 - ins;
    memmove(m + 9 + ins, m + 9, len - 9);
    memcpy(m + 9, rest, ins);
    m[len + ins] = '\0';
  }
  last_error.fault_addr = addr;
  last_error.fault_kind = kind;
  last_error.device_lost = lost;
}

void plugin_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(0, 0, 0, fmt, ap);
  va_end(ap);
}

void plugin_error_fault(uint64_t addr, int kind, int device_lost,
                        const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(addr, kind, device_lost, fmt, ap);
  va_end(ap);
}

void plugin_error_take(__tgt_rtl_error *out) {
  *out = last_error;
  memset(&last_error, 0, sizeof last_error);
}

void plugin_error_peek(__tgt_rtl_error *out) { *out = last_error; }
