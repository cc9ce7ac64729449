/*
 * races.c - the verdict after a kernel Helgrind or DRD reported errors in
 * (SIMDEVICE_VALGRIND=helgrind|drd): the tool's reports, read back from
 * its log (valgrind_log.c), give the address of each racing access:
 *
 *   Helgrind: "Possible data race during write of size 8 at 0x600000004FF8
 *              by thread #5"
 *   DRD:      "Conflicting store by thread 3 at 0x600000004ff8 size 8"
 *
 * Each address that lies in a named device copy (names.c) names its
 * variable: one line on stderr and one finding (rule `data-race`) per
 * variable, after the tool's reports, with the kernel, whose entry name
 * ends with its line. Races on memory no construct mapped (a global, the
 * stack) give the one line without a variable, as before there were names.
 *
 * Locking: none of its own; called by the thread whose kernel ended.
 */
#include <errno.h>
#include <inttypes.h>
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

/* The address a race report's first line gives, or 0 for another line. */
static uint64_t race_address(const char *line) {
  const char *at = NULL;
  if (strstr(line, "Possible data race during ") != NULL ||
      (strstr(line, "Conflicting ") != NULL &&
       strstr(line, " by thread ") != NULL))
    at = strstr(line, " at 0x");
  return at != NULL ? (uint64_t)strtoull(at + 4, NULL, 16) : 0;
}

/* valgrind_log_line_fn: collects the variables racing addresses lie in. */
static void collect(const char *line, void *arg) {
  struct raced *r = arg;
  uint64_t addr = race_address(line);
  char variable[128], how[300];
  if (addr == 0)
    return;
  if (!names_describe((const void *)(uintptr_t)addr, variable,
                      sizeof variable, how, sizeof how)) {
    r->unnamed = 1;
    return;
  }
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
  struct raced r = {0};
  valgrind_log_show(collect, &r);
  for (int i = 0; i < r.count; i++)
    verdict(tool, kernel, r.v[i].variable, r.v[i].addr, r.v[i].how);
  if (r.count == 0 || r.unnamed)
    verdict(tool, kernel, NULL, 0, NULL);
}
