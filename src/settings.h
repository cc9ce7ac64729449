/*
 * settings.h - every environment variable libomptarget reads, read in one
 * place (settings.c), once, and validated once: a bad value gets one warning
 * naming the variable and the accepted values, then its default. The other
 * files ask settings_get() and never call getenv.
 *
 * This is the bottom of src/: it calls nothing else of libomptarget.
 *
 * Thread safety: the values are read once under a pthread_once and are
 * read-only afterwards (settings_reread_for_test excepted), so readers take
 * no lock. Values that change later (LIBOMPTARGET_INFO through
 * __tgt_set_info_flag, OMP_DEFAULT_DEVICE through omp_set_default_device)
 * are copied by their owners (report.c, device.c), which guard the copy.
 */
#ifndef SIMTARGET_SETTINGS_H
#define SIMTARGET_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

/* Functions shared by the files of libomptarget, never exported. */
#define HIDDEN __attribute__((visibility("hidden")))

/* OMP_TARGET_OFFLOAD */
enum offload_policy { POLICY_DEFAULT = 0, POLICY_MANDATORY, POLICY_DISABLED };

struct settings {
  int debug_level;             /* LIBOMPTARGET_DEBUG: > 0 prints debug output */
  uint32_t info_flags;         /* LIBOMPTARGET_INFO: enum tgt_info_bits */
  enum offload_policy offload; /* OMP_TARGET_OFFLOAD */
  int default_device;          /* OMP_DEFAULT_DEVICE, >= 0 */
  bool nowait_waits;           /* SIMTARGET_NOWAIT=wait */
  uint32_t checks;             /* SIMTARGET_CHECK: enum check_mode bits */
  /* Lists checked by their users, which say what is wrong with an item:
   * NULL when unset or empty. */
  const char *plugins;         /* LIBOMPTARGET_PLUGINS (plugins.c) */
  const char *faults;          /* SIMTARGET_FAULTS (faults.c) */
  const char *fault_counts;    /* SIMTARGET_FAULT_COUNTS: a file name */
  const char *trace;           /* SIMTARGET_TRACE: the JSON trace's file */
  const char *profile;         /* LIBOMPTARGET_PROFILE: the timeline's file */
  bool keep_going;             /* SIMTARGET_KEEP_GOING=1 (failure.c) */
  /* libomp's OMP_TOOL / OMP_TOOL_LIBRARIES, read, not checked (libomp
   * checks them): a tool may be named, and OMP_TOOL is not `disabled` */
  bool omp_tool_named;
  bool omp_tool_disabled;
};

/* The bug-finding checks SIMTARGET_CHECK turns on (a comma list). */
enum check_mode {
  CHECK_STALE = 1u << 0, /* stale data: src/stale_check.c */
};

/* The settings, read from the environment on the first call. */
HIDDEN const struct settings *settings_get(void);
/* Opens the output file `path` named by variable `name` (SIMTARGET_TRACE,
 * LIBOMPTARGET_PROFILE) for writing from its start, emptied: a descriptor,
 * or -1 after one warning on stderr naming the variable, the file and why.
 * Refused, as another user could have planted them to make the program
 * overwrite a file of its user: a symbolic link (O_NOFOLLOW), and a regular
 * file owned by someone else than the effective user. `what` names the
 * output in the warning ("trace", "profile"). */
HIDDEN int settings_open_output(const char *name, const char *path,
                                const char *what);
/* One warning naming variable `name`, its file and the error `err` of a
 * failed write; the output ends there ("the trace ends before ..."):
 * `where` says what of it is kept. */
HIDDEN void settings_warn_write_failed(const char *name, const char *path,
                                       int err, const char *where);
/* Read the environment again, for unit tests that change it with setenv
 * (no other thread may be reading the settings meanwhile). */
#ifdef SIMTARGET_TEST_HOOKS
HIDDEN void settings_reread_for_test(void);
#endif

#endif
