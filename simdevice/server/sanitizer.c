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
 * Locking: none; the report callback runs once, in the reporting thread,
 * under the runtime's own report lock.
 */
#include <stdint.h>

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

static void on_asan_report(const char *report) {
  (void)report;
  void *addr = __asan_get_report_address ? __asan_get_report_address() : 0;
  int write = __asan_get_report_access_type
                  ? __asan_get_report_access_type() != 0
                  : 0;
  faults_record_sanitizer((uint64_t)(uintptr_t)addr, write);
}

void sanitizer_init(void) {
  if (__asan_set_error_report_callback != NULL)
    __asan_set_error_report_callback(on_asan_report);
}
