/*
 * report.h - diagnostics: LIBOMPTARGET_DEBUG / LIBOMPTARGET_INFO output,
 * the per-thread "last error" that explains a failed construct, and the one
 * place that decides what a failed construct does (report_offload_failure).
 *
 * Thread safety: the settings are written once by report_init() (under a
 * pthread_once) and by __tgt_set_info_flag (an atomic store); the last-error
 * buffer is thread-local, so no lock is needed.
 */
#ifndef SIMTARGET_REPORT_H
#define SIMTARGET_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "omptarget_plugin.h" /* the LIBOMPTARGET_INFO bits */

#define HIDDEN __attribute__((visibility("hidden")))

/* OMP_TARGET_OFFLOAD */
enum offload_policy { POLICY_DEFAULT = 0, POLICY_MANDATORY, POLICY_DISABLED };

HIDDEN void report_init(void);
HIDDEN int report_debug_enabled(void);
HIDDEN uint32_t report_info_flags(void);
HIDDEN void report_set_info_flags(uint32_t flags);
HIDDEN enum offload_policy report_policy(void);

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

/* "file:line:col" (or "unknown location") from ident_t's psource. */
HIDDEN const char *report_location(const ident_t *loc, char *buf, size_t len);

struct device;
/*
 * The failure policy, in one place. Called by an entry point whose construct
 * failed, with the construct's name ("target", "target data begin"...).
 * Under OMP_TARGET_OFFLOAD=mandatory, and under `default` when a device
 * exists (LLVM's rule), it prints the construct, the source location, the
 * recorded cause, the rejected plugins and images, and the device's mapping
 * table, then exits with status 1. Otherwise (`disabled`, or no device) it
 * reports under LIBOMPTARGET_INFO that the host fallback will run and
 * returns.
 */
HIDDEN void report_offload_failure(const ident_t *loc, const char *construct,
                                   struct device *dev);

#endif
