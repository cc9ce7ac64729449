/*
 * report.h - diagnostics: LIBOMPTARGET_DEBUG / LIBOMPTARGET_INFO output and
 * the per-thread "last error" that explains a failed construct. What a
 * failed construct then does is failure.h's business.
 *
 * Thread safety: the info flags are copied from the settings once by
 * report_init() (under a pthread_once) and changed by __tgt_set_info_flag
 * (an atomic store); the last-error buffer is thread-local, so no lock is
 * needed.
 */
#ifndef SIMTARGET_REPORT_H
#define SIMTARGET_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "omptarget_plugin.h" /* the LIBOMPTARGET_INFO bits */
#include "settings.h"

HIDDEN void report_init(void);
HIDDEN int report_debug_enabled(void);
HIDDEN uint32_t report_info_flags(void);
HIDDEN void report_set_info_flags(uint32_t flags);

/* LIBOMPTARGET_DEBUG: "omptarget --> ..." on stderr. */
HIDDEN void report_debug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* LIBOMPTARGET_INFO: printed when `bit` is set: "omptarget info: ...". */
HIDDEN void report_info(uint32_t bit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#define REPORT_INFO_ON(bit) ((report_info_flags() & (bit)) != 0)
/* Always printed: "omptarget error: ...". For misuse that is not tied to a
 * construct (a bad argument to an API routine). */
HIDDEN void report_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* The cause of the current failure, kept per thread until the construct's
 * entry point decides what to do with it. The first cause set wins until
 * report_error_clear(); later calls append "; ..." context. */
HIDDEN void report_error_set(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
HIDDEN const char *report_error_get(void);
HIDDEN void report_error_clear(void);
/* Replace the cause with `cause` (after an undo whose own messages would
 * hide it), keeping the table below. */
HIDDEN void report_error_replace(const char *cause);
/* The state at the failure: `text` (malloc'ed, taken over) is the mapping
 * table as it was when the current construct failed, kept until
 * report_error_clear; the first one kept wins. NULL when none was kept. */
HIDDEN void report_failure_table_keep(char *text);
HIDDEN const char *report_failure_table(void);

/* What the current failure is, for the bug-finding checks' report
 * (common/check_findings.h, written by failure.c): the rule a kernel's
 * fault broke and the variable it names (set by host_objects.c where it
 * explains the fault), the kernel that ran (device_ops.c). Per thread,
 * cleared with the cause by report_error_clear; the first rule set wins.
 * Fields never set are "". */
struct report_finding {
  char rule[48];
  char variable[160];
  char kernel[256];
};
HIDDEN void report_finding_rule(const char *rule, const char *variable);
HIDDEN void report_finding_kernel(const char *kernel_name);
HIDDEN const struct report_finding *report_finding_get(void);

/* "file:line:col" (or "unknown location") from ident_t's psource. */
/* Clang's ident psource ";file;function;line;column;;" split into its
 * parts (those missing stay empty / 0). Returns whether it has at least the
 * file and the function field. */
struct source_location {
  char file[512], func[256];
  int line, col;
};
HIDDEN bool report_location_parts(const ident_t *loc,
                                  struct source_location *out);
HIDDEN const char *report_location(const ident_t *loc, char *buf, size_t len);

#endif
