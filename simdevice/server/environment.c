/*
 * environment.c - the server's only reader of the environment (the table of
 * every variable is in README.md): read once, by the main thread at start
 * (environment_read, before any other thread), read-only afterwards.
 * SIMDEVICE_RUNTIME names a library, checked by the dlopen that uses it
 * (main.c names the variable when it fails). The device runtime reads its
 * own (runtime.c, caps_init).
 *
 * The two test hooks (tests/simdevice/test_faults.c) exist only in a server
 * built with -DSIMTARGET_TEST_HOOKS (simdevice-server-hooks, never
 * installed): the shipped server neither reads nor knows them.
 *
 * Locking: none (written before any thread starts).
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

static struct server_environment environment;

/* secure_getenv: every variable is ignored when the host is setuid or
 * setcap (the kernel marks this exec secure too, as the credentials
 * differ). An empty value counts as unset. */
static const char *variable(const char *name) {
  const char *value = secure_getenv(name);
  return value != NULL && *value != '\0' ? value : NULL;
}

void environment_read(void) {
  environment.runtime = variable("SIMDEVICE_RUNTIME");
#ifdef SIMTARGET_TEST_HOOKS
  /* The mprotect scheme where guard regions work, so that it stays
   * covered there too. */
  const char *force = variable("SIMDEVICE_TEST_GUARD_MPROTECT");
  environment.test_guard_mprotect = force != NULL && strcmp(force, "1") == 0;
  /* Widens the moment where the device process is reaped (its pid gone)
   * but its end not yet recorded by the supervisor. */
  const char *late = variable("SIMDEVICE_TEST_SUPERVISOR_LATE_MS");
  int ms = late != NULL ? atoi(late) : 0;
  environment.test_supervisor_late_ms = ms > 0 ? (unsigned)ms : 0;
#endif
}

const struct server_environment *environment_get(void) {
  return &environment;
}

/* The plugin started this process with a sanitizer's runtime first in
 * LD_PRELOAD and the program's value beside it (plugin/sanitizer.c): the
 * runtime is loaded now, and device code sees the program's environment. */
void environment_restore_preload(void) {
  const char *was = getenv("SIMDEVICE_LD_PRELOAD_WAS");
  if (was != NULL)
    setenv("LD_PRELOAD", was, 1);
  else if (getenv("SIMDEVICE_LD_PRELOAD_UNSET") != NULL)
    unsetenv("LD_PRELOAD");
  unsetenv("SIMDEVICE_LD_PRELOAD_WAS");
  unsetenv("SIMDEVICE_LD_PRELOAD_UNSET");
}
