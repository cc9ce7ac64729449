/*
 * races.c - the verdict after a kernel Helgrind or DRD reported errors in
 * (SIMDEVICE_VALGRIND=helgrind|drd): the tool's reports, read back from
 * its log (valgrind_log.c), give the address of each racing access:
 *
 *   Helgrind: "Possible data race during write of size 8 at 0x600000004FF8
 *              by thread #5"
 *   DRD:      "Conflicting store by thread 3 at 0x600000004ff8 size 8"
 *
 * Every line of the log is seen as it is shown, after whichever command
 * (a kernel of a queue slot may race while the main slot serves a copy),
 * and each racing address is noted with the named device copy (names.c)
 * it lies in, at once (the copy may be freed before the kernel's verdict).
 * After a kernel with errors, the variables noted since the last verdict
 * are said: one line on stderr and one finding (rule `data-race`) per
 * variable, after the tool's reports, with the kernel, whose entry name
 * ends with its line. Races on memory no construct mapped (a global, the
 * stack) give the one line without a variable, as before there were names.
 *
 * Locking: `lock` guards the noted races (noted under valgrind_log.c's
 * lock, taken by the thread whose kernel ended).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_findings.h"
#include "server.h"

/* The most variables one kernel's races are named on (more: the first). */
#define RACES_NAMED 8

struct raced {
  int count;
  int unnamed; /* a racing address in no named device copy */
  struct {
    uint64_t addr;
    char variable[128], how[300];
  } v[RACES_NAMED];
};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct raced noted; /* since the last verdict */

/* The address a race report's first line gives, or 0 for another line. */
static uint64_t race_address(const char *line) {
  const char *at = NULL;
  if (strstr(line, "Possible data race during ") != NULL ||
      (strstr(line, "Conflicting ") != NULL &&
       strstr(line, " by thread ") != NULL))
    at = strstr(line, " at 0x");
  return at != NULL ? (uint64_t)strtoull(at + 4, NULL, 16) : 0;
}

/* Adds a variable to r unless it is there or r is full (under lock). */
static void note(struct raced *r, uint64_t addr, const char *variable,
                 const char *how) {
  for (int i = 0; i < r->count; i++)
    if (strcmp(r->v[i].variable, variable) == 0)
      return;
  if (r->count == RACES_NAMED)
    return;
  r->v[r->count].addr = addr;
  snprintf(r->v[r->count].variable, sizeof r->v[0].variable, "%s", variable);
  snprintf(r->v[r->count].how, sizeof r->v[0].how, "%s", how);
  r->count++;
}

/* valgrind_log_line_fn: notes the variable a racing address lies in. */
static void watch(const char *line) {
  uint64_t addr = race_address(line);
  char variable[128], how[300];
  if (addr == 0)
    return;
  int named = names_describe((const void *)(uintptr_t)addr, variable,
                             sizeof variable, how, sizeof how);
  pthread_mutex_lock(&lock);
  if (named)
    note(&noted, addr, variable, how);
  else
    noted.unnamed = 1;
  pthread_mutex_unlock(&lock);
}

void races_init(void) { valgrind_log_watch(watch); }

/* Says one race, on stderr and as a finding; variable NULL: unnamed. */
static void verdict(const char *tool, const char *kernel, const char *variable,
                    uint64_t addr, const char *how) {
  char message[900], on[600] = "memory";
  if (variable != NULL)
    snprintf(on, sizeof on, "`%s` (device address 0x%" PRIx64 ", %s)",
             variable, addr, how);
  snprintf(message, sizeof message,
           "Valgrind's %s reported errors in kernel `%.200s` (above): "
           "threads or teams of the kernel race on %s",
           tool, kernel, on);
  fprintf(stderr, "simdevice: %s\n", message);
  struct check_finding f = {
      .check = tool,
      .rule = "data-race",
      .variable = variable,
      .kernel = kernel,
      .message = message,
      .gpu = "the threads run at once: updates are lost, values torn, and "
             "the result changes from run to run",
      .fix = "a reduction clause, `omp atomic`, or a critical section for "
             "the shared variable"};
  if (check_finding_write(&f) < 0)
    fprintf(stderr, "simdevice: cannot write the finding to %s: %s\n",
            CHECK_REPORT_ENV, strerror(errno));
}

void races_after_kernel(const char *tool, const char *kernel) {
  static struct raced r; /* (too big for a kernel thread's stack) */
  static pthread_mutex_t verdict_lock = PTHREAD_MUTEX_INITIALIZER;
  valgrind_log_show();
  pthread_mutex_lock(&verdict_lock);
  pthread_mutex_lock(&lock);
  r = noted;
  noted = (struct raced){0};
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < r.count; i++)
    verdict(tool, kernel, r.v[i].variable, r.v[i].addr, r.v[i].how);
  if (r.count == 0 || r.unnamed)
    verdict(tool, kernel, NULL, 0, NULL);
  pthread_mutex_unlock(&verdict_lock);
}
