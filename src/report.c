/*
 * report.c - diagnostics output (LIBOMPTARGET_DEBUG, LIBOMPTARGET_INFO,
 * errors) and the per-thread cause of a failure. The bottom layer but for
 * settings.c: it calls nothing above it. What a failed construct does is
 * decided in failure.c.
 *
 * Thread safety: the info flags start from LIBOMPTARGET_INFO (copied once,
 * under a pthread_once) and may change later through __tgt_set_info_flag,
 * so they are an atomic. The cause buffer is thread-local. Output lines are
 * written with one fprintf call each so lines of different threads do not
 * interleave.
 */
#include "report.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t report_once = PTHREAD_ONCE_INIT;
static _Atomic uint32_t info_flags;

static __thread char last_error[2048];
/* The mapping table as it was when the current construct failed (malloc'ed
 * text), printed by failure.c's report. */
static __thread char *failure_table;
/* The current failure's rule, variable and kernel (report_finding_*). */
static __thread struct report_finding finding;

static void report_copy_settings(void) {
  atomic_store(&info_flags, settings_get()->info_flags);
}

void report_init(void) { pthread_once(&report_once, report_copy_settings); }

int report_debug_enabled(void) { return settings_get()->debug_level > 0; }

uint32_t report_info_flags(void) {
  report_init();
  return atomic_load_explicit(&info_flags, memory_order_relaxed);
}

void report_set_info_flags(uint32_t flags) {
  report_init();
  atomic_store(&info_flags, flags);
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

void report_error_clear(void) {
  last_error[0] = '\0';
  finding.rule[0] = finding.variable[0] = finding.kernel[0] = '\0';
  if (failure_table) { /* every construct clears: no free(NULL) call */
    free(failure_table);
    failure_table = NULL;
  }
}

void report_error_replace(const char *cause) {
  snprintf(last_error, sizeof last_error, "%s", cause);
}

void report_failure_table_keep(char *text) {
  if (failure_table) /* the first failure's table: later ones are undo */
    free(text);
  else
    failure_table = text;
}

const char *report_failure_table(void) { return failure_table; }

void report_finding_rule(const char *rule, const char *variable) {
  if (finding.rule[0]) /* the first explanation wins, as the cause's */
    return;
  snprintf(finding.rule, sizeof finding.rule, "%s", rule);
  snprintf(finding.variable, sizeof finding.variable, "%s",
           variable ? variable : "");
}

void report_finding_kernel(const char *kernel_name) {
  if (!finding.kernel[0])
    snprintf(finding.kernel, sizeof finding.kernel, "%s",
             kernel_name ? kernel_name : "");
}

const struct report_finding *report_finding_get(void) { return &finding; }

bool report_location_parts(const ident_t *loc, struct source_location *out) {
  memset(out, 0, sizeof *out);
  /* psource is ";file;function;line;column;;" */
  if (!loc || !loc->psource || loc->psource[0] != ';')
    return false;
  const char *p = loc->psource + 1;
  const char *q = strchr(p, ';');
  if (!q)
    return false;
  snprintf(out->file, sizeof out->file, "%.*s", (int)(q - p), p);
  p = q + 1;
  q = strchr(p, ';');
  if (!q)
    return false;
  snprintf(out->func, sizeof out->func, "%.*s", (int)(q - p), p);
  sscanf(q + 1, "%d;%d", &out->line, &out->col);
  return true;
}

const char *report_location(const ident_t *loc, char *buf, size_t len) {
  struct source_location l;
  report_location_parts(loc, &l);
  const char *file = l.file, *func = l.func;
  int line = l.line, col = l.col;
  if (!file[0] || !strcmp(file, "unknown"))
    snprintf(buf, len, "unknown location");
  else if (func[0])
    snprintf(buf, len, "%s:%d:%d (in %s)", file, line, col, func);
  else
    snprintf(buf, len, "%s:%d:%d", file, line, col);
  return buf;
}
