/*
 * check_findings.h - one finding of a bug-finding check (issue 32), written
 * as one JSON line to the file named by SIMTARGET_CHECK_REPORT.
 *
 * Every check (the stale-data check in libomptarget, the device's Valgrind
 * and sanitizer modes in the simdevice plugin and server, the guard-page
 * faults) reports through this one writer, so simtarget-check collects
 * every finding of a run from one file, whichever process found it.
 * The human message goes to stderr as before; this is the machine copy.
 */
#ifndef SIMTARGET_CHECK_FINDINGS_H
#define SIMTARGET_CHECK_FINDINGS_H

/* Every field is optional (NULL: left out of the line), except rule. */
struct check_finding {
  const char *check;     /* which check found it: "stale", "memcheck", ... */
  const char *rule;      /* the rule broken, a short id: "released-unread" */
  const char *variable;  /* the mapped variable, as the program names it */
  const char *construct; /* the construct's source location, file:line:col */
  const char *kernel;    /* the kernel's source location, file:line */
  const char *message;   /* what happened, one sentence */
  const char *gpu;       /* what a GPU would do with this program */
  const char *fix;       /* how to fix it */
};

/* The environment variable naming the report file. */
#define CHECK_REPORT_ENV "SIMTARGET_CHECK_REPORT"

/* Appends f to the report file, when SIMTARGET_CHECK_REPORT names one.
 * Returns 1 when written, 0 when no report file is asked for, -1 (errno
 * set) when the file cannot be opened or written; the caller says so.
 * Safe from any thread and any process: the line goes out in one write(2)
 * on a descriptor opened O_APPEND and closed before returning, so no
 * descriptor is held between findings and lines never interleave. */
int check_finding_write(const struct check_finding *f);

#endif
