/*
 * sanitizer.c - the device process under a sanitizer's runtime (device code
 * built with -fsanitize=address, =thread or =undefined; the plugin preloads
 * the runtime of the clang that built it: plugin/sanitizer.c).
 *
 * The runtime asks the program for its default options (the functions
 * below, exported: the server is linked with -rdynamic; the user's
 * ASAN_OPTIONS, TSAN_OPTIONS or UBSAN_OPTIONS come after them): the
 * server's own handlers report faults in kernels (faults.c), so the
 * sanitizer leaves SIGSEGV, SIGBUS, SIGILL and SIGFPE alone; the server's
 * memory is not the program's, so no leak report at its exit. An ASan
 * report is also written to the fault record (the address, read or write,
 * the kernel), so that the host's error names the mapped variable as a
 * fault's does; ASan's own report on stderr gives the source line.
 * Every entry point of a runtime is referenced weakly: without one the
 * server runs as before.
 *
 * Locking: a report callback runs in the reporting thread, under the
 * runtime's own report lock; TSan's races are held in slots claimed with
 * an atomic counter and written at kernel ends under drain_lock.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_findings.h"
#include "server.h"

#define HANDLERS_OFF                                                           \
  "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:"             \
  "handle_abort=0:allow_user_segv_handler=1"

__attribute__((visibility("default"))) const char *__asan_default_options(void);
__attribute__((visibility("default"))) const char *__tsan_default_options(void);
__attribute__((visibility("default"))) const char *
__ubsan_default_options(void);

const char *__asan_default_options(void) {
  return HANDLERS_OFF ":detect_leaks=0";
}

const char *__tsan_default_options(void) { return HANDLERS_OFF; }

const char *__ubsan_default_options(void) {
  return HANDLERS_OFF ":print_stacktrace=1";
}

extern void __asan_set_error_report_callback(void (*)(const char *))
    __attribute__((weak));
extern void *__asan_get_report_address(void) __attribute__((weak));
extern int __asan_get_report_access_type(void) __attribute__((weak));

/* "KIND at FILE:LINE:COL" from the report's line "SUMMARY:
 * AddressSanitizer: KIND /path/FILE:LINE:COL in FUNCTION" (the file's base
 * name: the host's message has room for little), or "" without one. */
static void summarize(const char *report, char *out, size_t len) {
  static const char tag[] = "SUMMARY: AddressSanitizer: ";
  const char *p = report ? strstr(report, tag) : NULL;
  out[0] = '\0';
  if (p == NULL)
    return;
  p += sizeof tag - 1;
  size_t kind = strcspn(p, " \n");
  const char *loc = p[kind] == ' ' ? p + kind + 1 : p + kind;
  size_t loc_len = strcspn(loc, " \n");
  for (size_t i = loc_len; i-- > 0;)
    if (loc[i] == '/') {
      loc_len -= i + 1;
      loc += i + 1;
      break;
    }
  if (loc_len == 0 || loc[0] == '(') /* no source line: "(module+0x...)" */
    snprintf(out, len, "%.*s", (int)kind, p);
  else
    snprintf(out, len, "%.*s at %.*s", (int)kind, p, (int)loc_len, loc);
}

static void on_asan_report(const char *report) {
  char summary[200];
  summarize(report, summary, sizeof summary);
  void *addr = __asan_get_report_address ? __asan_get_report_address() : 0;
  int write = __asan_get_report_access_type
                  ? __asan_get_report_access_type() != 0
                  : 0;
  faults_record_sanitizer((uint64_t)(uintptr_t)addr, write, summary);
}

extern int __sanitizer_symbolize_pc(void *pc, const char *fmt, char *out,
                                    size_t len) __attribute__((weak));

/* "file:line:col" of `pc` in device code (the file's base name), or "". */
static void source_of(void *pc, char *out, size_t len) {
  char full[512] = "";
  out[0] = '\0';
  if (__sanitizer_symbolize_pc == NULL || pc == NULL)
    return;
  __sanitizer_symbolize_pc(pc, "%s:%l:%c", full, sizeof full);
  const char *base = strrchr(full, '/');
  /* No line known ("file:0:col"), or no file: nothing worth naming. */
  if (strncmp(full, "<null>", 6) != 0 && strstr(full, ":0:") == NULL)
    snprintf(out, len, "%s", base ? base + 1 : full);
}

/* UBSan calls this after each report (exported, -rdynamic): the machine
 * copy of it as a finding (common/check_findings.h). */
__attribute__((visibility("default"))) void __ubsan_on_report(void);
extern void __ubsan_get_current_report_data(const char **kind,
                                            const char **message,
                                            const char **file, unsigned *line,
                                            unsigned *col, char **addr)
    __attribute__((weak));

void __ubsan_on_report(void) {
  const char *kind = NULL, *message = NULL, *file = NULL;
  unsigned line = 0, col = 0;
  char *addr = NULL;
  if (__ubsan_get_current_report_data == NULL)
    return;
  __ubsan_get_current_report_data(&kind, &message, &file, &line, &col, &addr);
  char where[300] = "";
  if (file != NULL && line > 0) {
    const char *base = strrchr(file, '/');
    snprintf(where, sizeof where, "%s:%u:%u", base ? base + 1 : file, line,
             col);
  }
  /* UBSan's runtimes leave `addr` NULL; the message gives the pointer
   * ("load of misaligned address 0x..."): named where it is device memory */
  const char *hex = message ? strstr(message, "0x") : NULL;
  void *pointer = addr ? (void *)addr
                       : hex ? (void *)(uintptr_t)strtoull(hex, NULL, 16)
                             : NULL;
  char variable[128] = "", how[300], text[700];
  if (pointer != NULL &&
      names_describe(pointer, variable, sizeof variable, how, sizeof how))
    snprintf(text, sizeof text, "%s (device address %p in `%s`: %s)",
             message ? message : kind, pointer, variable, how);
  struct check_finding f = {
      .check = "ubsan", .rule = kind ? kind : "undefined-behavior",
      .variable = variable[0] ? variable : NULL,
      .kernel = where[0] ? where : NULL,
      .message = variable[0] ? text : message,
      .gpu = "a GPU computes on with whatever the operation gives, silently"};
  (void)check_finding_write(&f);
}

/* TSan's races, held until their kernel ends (sanitizer_kernel_end): TSan
 * calls __tsan_on_report under its own locks, where a call it intercepts
 * (close, a mutex) can deadlock with a kernel thread that waits for those
 * locks (a racy histogram hung in close() 1 run in 3 when the findings were
 * written from the callback). The callback only copies into a free slot;
 * reports beyond TSAN_HELD before a kernel ends are counted, not kept. */
#define TSAN_HELD 64
struct tsan_race {
  _Atomic int ready; /* filled by the callback */
  const char *what;  /* TSan's static description */
  void *addr;
  void *pc[2]; /* the two accesses */
};
static struct tsan_race held[TSAN_HELD];
static _Atomic unsigned held_claimed, held_dropped;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned held_written; /* under drain_lock */

/* TSan calls this for each race it reports (exported, -rdynamic). */
__attribute__((visibility("default"))) void __tsan_on_report(void *report);
extern int __tsan_get_report_data(void *report, const char **description,
                                  int *count, int *stack_count,
                                  int *mop_count, int *loc_count,
                                  int *mutex_count, int *thread_count,
                                  int *unique_tid_count, void **sleep_trace,
                                  unsigned long trace_size)
    __attribute__((weak));
extern int __tsan_get_report_mop(void *report, unsigned long idx, int *tid,
                                 void **addr, int *size, int *write,
                                 int *atomic, void **trace,
                                 unsigned long trace_size)
    __attribute__((weak));

void __tsan_on_report(void *report) {
  const char *what = NULL;
  int count, stacks, mops = 0, locs, mutexes, threads, tids;
  void *sleep[1];
  if (__tsan_get_report_data == NULL || __tsan_get_report_mop == NULL ||
      __tsan_get_report_data(report, &what, &count, &stacks, &mops, &locs,
                             &mutexes, &threads, &tids, sleep, 1) == 0)
    return;
  unsigned n = atomic_fetch_add(&held_claimed, 1);
  if (n >= TSAN_HELD) {
    atomic_fetch_add(&held_dropped, 1);
    return;
  }
  struct tsan_race *r = &held[n];
  r->what = what;
  r->addr = NULL;
  r->pc[0] = r->pc[1] = NULL;
  for (int i = 0; i < mops && i < 2; i++) {
    int tid, size, write, atomic;
    void *trace[1] = {NULL};
    if (__tsan_get_report_mop(report, (unsigned long)i, &tid, &r->addr, &size,
                              &write, &atomic, trace, 1) != 0)
      r->pc[i] = trace[0];
  }
  atomic_store(&r->ready, 1);
}

/* One held race as a finding: the source lines of the two accesses, the
 * mapped variable the address lies in (names.c). */
static void tsan_race_write(const struct tsan_race *r) {
  char lines[2][160], variable[128], how[300], message[700];
  source_of(r->pc[0], lines[0], sizeof lines[0]);
  source_of(r->pc[1], lines[1], sizeof lines[1]);
  bool named = names_describe(r->addr, variable, sizeof variable, how,
                              sizeof how);
  snprintf(message, sizeof message,
           "%s on device address %p%s%s%s%s%s between %s and %s",
           r->what ? r->what : "race", r->addr, named ? " in `" : "",
           named ? variable : "", named ? "` (" : "", named ? how : "",
           named ? ")" : "", lines[0][0] ? lines[0] : "?",
           lines[1][0] ? lines[1] : "?");
  struct check_finding f = {
      .check = "tsan", .rule = r->what ? r->what : "data-race",
      .variable = named ? variable : NULL,
      .kernel = lines[0][0] ? lines[0] : lines[1][0] ? lines[1] : NULL,
      .message = message,
      .gpu = "a GPU runs the accesses at once: the result varies from run "
             "to run",
      .fix = "make the update a reduction or an atomic, or order the "
             "accesses (barrier, depend)"};
  (void)check_finding_write(&f);
}

/* Writes the races held so far; the slots are reused once every claimed
 * one was written and no report claimed another meanwhile. */
static void tsan_races_write(void) {
  pthread_mutex_lock(&drain_lock);
  unsigned claimed = atomic_load(&held_claimed);
  unsigned upto = claimed < TSAN_HELD ? claimed : TSAN_HELD;
  for (; held_written < upto; held_written++) {
    if (!atomic_load(&held[held_written].ready))
      break; /* still being filled: the next kernel end writes it */
    tsan_race_write(&held[held_written]);
  }
  if (held_written == upto) {
    /* cleared before the slots are given back: a report that claims slot
     * 0 right after the exchange must find it clear before it fills it */
    for (unsigned i = 0; i < upto; i++)
      atomic_store(&held[i].ready, 0);
    if (atomic_compare_exchange_strong(&held_claimed, &claimed, 0))
      held_written = 0;
  }
  unsigned dropped = atomic_exchange(&held_dropped, 0);
  if (dropped > 0)
    fprintf(stderr, "simdevice: %u more ThreadSanitizer reports in one "
            "kernel than the %d written as findings\n", dropped, TSAN_HELD);
  pthread_mutex_unlock(&drain_lock);
}

extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

/* Kernels end before the host starts the ones that depend on them: a
 * kernel that starts after another ended comes after it for ThreadSanitizer
 * too, and two kernels that run at once (nowait, other queues) do not. */
static char kernels_ended;

void sanitizer_kernel_begin(void) {
  if (__tsan_acquire != NULL)
    __tsan_acquire(&kernels_ended);
}

void sanitizer_kernel_end(void) {
  if (__tsan_release == NULL)
    return;
  __tsan_release(&kernels_ended);
  if (atomic_load(&held_claimed) != 0)
    tsan_races_write();
}

void sanitizer_init(void) {
  if (__asan_set_error_report_callback != NULL)
    __asan_set_error_report_callback(on_asan_report);
}
