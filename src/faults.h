/*
 * faults.h - fault injection between libomptarget and its plugins.
 *
 * Every plugin call in libomptarget is written RTL_CALL(SITE, ops, name)(args)
 * instead of ops->name(args). When no fault is configured that costs one
 * load and one predictable branch; when one is, faults_pick() counts the call
 * (per site and per function) and may hand back a stub that returns the
 * function's failure value (the last column of TGT_RTL_INTERFACE) instead of
 * the plugin's function. Everything here is generated from TGT_RTL_INTERFACE
 * and FAULT_SITES, so a new interface row or site is covered without edits.
 *
 * Configuration: SIMTARGET_FAULTS (applied when the library loads, from
 * settings.h; the grammar is in README.md, "Fault injection") or the calls
 * below, for unit tests.
 * Optional functions configured "absent" are cleared when a plugin is
 * resolved (plugins.c), so libomptarget's fallback runs.
 *
 * Thread safety: configure/reset before other threads call plugins; the
 * counters are atomics, so counting and injecting are safe from any thread.
 */
#ifndef SIMTARGET_FAULTS_H
#define SIMTARGET_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fault_sites.h"
#include "omptarget_plugin.h"
#include "report.h"

/* One number per interface row, in table order. */
enum fault_fn {
#define FAULT_FN_ENUM(req, ret, name, params, args, fail) FAULT_FN_##name,
  TGT_RTL_INTERFACE(FAULT_FN_ENUM)
#undef FAULT_FN_ENUM
  FAULT_FN_COUNT
};

enum fault_site {
#define FAULT_SITE_ENUM(num, id, fn, where) FAULT_SITE_##id = num,
  FAULT_SITES(FAULT_SITE_ENUM)
#undef FAULT_SITE_ENUM
};

/* The function each site calls, for RTL_CALL's compile-time check. */
enum {
#define FAULT_SITE_FN(num, id, fn, where) FAULT_SITE_FN_##id = FAULT_FN_##fn,
  FAULT_SITES(FAULT_SITE_FN)
#undef FAULT_SITE_FN
};

/* Non-zero while any rule or the counting mode is active. */
HIDDEN extern int faults_armed;

typedef void (*fault_any_fn)(void);
/* The function to call at `site`: `real`, or the failing stub of `fn`. */
HIDDEN fault_any_fn faults_pick(enum fault_site site, enum fault_fn fn,
                                fault_any_fn real);

/* The plugin function `name` of `ops`, as site SITE calls it. */
#define RTL_CALL(SITE, ops, name)                                              \
  ((void)sizeof(char[(int)FAULT_SITE_FN_##SITE == (int)FAULT_FN_##name ? 1 : -1]), \
   __builtin_expect(faults_armed, 0)                                           \
       ? (__typeof__((ops)->name))faults_pick(FAULT_SITE_##SITE,               \
                                              FAULT_FN_##name,                 \
                                              (fault_any_fn)(ops)->name)       \
       : (ops)->name)

/* ---- configuration (SIMTARGET_FAULTS syntax) ---------------------------- */

/* Replace the configuration with `spec` and zero the counters. 0, or -1
 * with a message naming the bad rule in `why` (the old configuration is
 * then cleared). Rules for plugin-internal points ("simdevice.spawn") are
 * accepted and left to that plugin. */
HIDDEN int faults_configure(const char *spec, char *why, size_t why_len);
/* No rules, no counting, counters zero. */
HIDDEN void faults_reset(void);
/* True when optional function `fn` is configured to look absent. */
HIDDEN bool faults_absent(enum fault_fn fn);

/* ---- what happened (counts since the last configure/reset) -------------- */
HIDDEN uint64_t faults_site_calls(enum fault_site site);
HIDDEN uint64_t faults_function_calls(enum fault_fn fn);
HIDDEN uint64_t faults_injected(void);
/* Names and lookups, for messages and tests. NULL / -1 when unknown. */
HIDDEN const char *faults_function_name(enum fault_fn fn);
HIDDEN int faults_function_by_name(const char *name);
HIDDEN const char *faults_site_name(int site);
HIDDEN int faults_site_by_name(const char *name);
/* Append the counts ("site N ID function calls" and "function NAME calls"
 * lines) to `path`, under the lock that also guards the injection lines, so
 * the two never interleave. 0, or -1 when the file cannot be written. */
HIDDEN int faults_write_counts(const char *path);

#endif
