/*
 * settings.c - the one reader of libomptarget's environment variables
 * (settings.h). An empty value counts as unset. A value that is not
 * accepted is reported once, on stderr, with the accepted values, and the
 * default is used; the lists (LIBOMPTARGET_PLUGINS, SIMTARGET_FAULTS) are
 * checked item by item by their users, which can say which item is wrong.
 *
 * Locking: `current` and the strings it points to are written by
 * read_environment() under `settings_once` (or by the test hook), then only
 * read. Nothing here takes a lock or calls the rest of libomptarget, so any
 * file may ask for a setting at any time, constructors included.
 */
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_once_t settings_once = PTHREAD_ONCE_INIT;
static struct settings current;
/* Copies of the list values, so a later setenv cannot free them under us. */
static char *plugins_copy, *faults_copy, *fault_counts_copy, *trace_copy,
    *profile_copy;

/* The value of `name`, or NULL when it is unset or empty. */
static const char *env_value(const char *name) {
  const char *value = getenv(name);
  return value && value[0] ? value : NULL;
}

/* The same for a variable that names a library or a file: ignored in a
 * setuid, setgid or setcap program, where it would load or write as the
 * program's owner (secure_getenv). */
static const char *secure_env_value(const char *name) {
  const char *value = secure_getenv(name);
  return value && value[0] ? value : NULL;
}

/* One line, one fprintf: lines of different threads do not interleave. */
static void warn_rejected(const char *name, const char *value,
                          const char *accepted, const char *fallback) {
  fprintf(stderr,
          "omptarget warning: %s=%s is not accepted (accepted: %s); using "
          "%s\n",
          name, value, accepted, fallback);
}

/* The whole of `text` as an integer in [min, max] (decimal, 0x hex, or
 * 0 octal, as LLVM reads LIBOMPTARGET_INFO). */
static bool parse_integer(const char *text, long long min, long long max,
                          long long *out) {
  char *end;
  errno = 0;
  long long n = strtoll(text, &end, 0);
  if (errno || end == text || *end || n < min || n > max)
    return false;
  *out = n;
  return true;
}

/* An integer variable: its value, or `fallback` after a warning. */
static long long integer_setting(const char *name, long long min,
                                 long long max, const char *accepted,
                                 long long fallback) {
  const char *value = env_value(name);
  long long n;
  if (!value)
    return fallback;
  if (parse_integer(value, min, max, &n))
    return n;
  char shown[32];
  snprintf(shown, sizeof shown, "%lld", fallback);
  warn_rejected(name, value, accepted, shown);
  return fallback;
}

/* A copy of a list variable's value; NULL when unset, empty, or out of
 * memory (said). */
static char *list_setting(const char *name, bool names_files) {
  const char *value = names_files ? secure_env_value(name) : env_value(name);
  if (!value)
    return NULL;
  char *copy = strdup(value);
  if (!copy)
    fprintf(stderr, "omptarget warning: %s is ignored: out of memory\n",
            name);
  return copy;
}

/* OMP_TARGET_OFFLOAD: the standard's values in any case, with surrounding
 * white space (as environment variables of OpenMP are read). */
static enum offload_policy offload_setting(void) {
  const char *value = env_value("OMP_TARGET_OFFLOAD");
  if (!value)
    return POLICY_DEFAULT;
  const char *start = value;
  while (isspace((unsigned char)*start))
    start++;
  size_t len = strlen(start);
  while (len > 0 && isspace((unsigned char)start[len - 1]))
    len--;
  static const struct {
    const char *word;
    enum offload_policy policy;
  } words[] = {{"default", POLICY_DEFAULT},
               {"mandatory", POLICY_MANDATORY},
               {"disabled", POLICY_DISABLED}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (len == strlen(words[i].word) && !strncasecmp(start, words[i].word, len))
      return words[i].policy;
  warn_rejected("OMP_TARGET_OFFLOAD", value, "mandatory, disabled, default",
                "default");
  return POLICY_DEFAULT;
}

static bool nowait_setting(void) {
  const char *value = env_value("SIMTARGET_NOWAIT");
  if (!value)
    return false;
  if (!strcmp(value, "wait"))
    return true;
  warn_rejected("SIMTARGET_NOWAIT", value, "wait",
                "the default: nowait regions are handed to libomp 16+");
  return false;
}

/* SIMTARGET_CHECK: a comma list of check modes, any case. An item no
 * component of simtarget knows is named in one warning and left out. Modes
 * that other components read from the same variable are listed here too,
 * with bit 0, so that naming them draws no warning. */
static uint32_t check_setting(void) {
  static const struct {
    const char *word;
    uint32_t bit;
  } modes[] = {{"stale", CHECK_STALE}};
  const char *value = env_value("SIMTARGET_CHECK");
  uint32_t bits = 0;
  for (const char *p = value; p && *p;) {
    size_t len = strcspn(p, ",");
    size_t i = 0;
    while (i < sizeof modes / sizeof modes[0] &&
           !(len == strlen(modes[i].word) &&
             !strncasecmp(p, modes[i].word, len)))
      i++;
    if (i < sizeof modes / sizeof modes[0])
      bits |= modes[i].bit;
    else if (len > 0)
      fprintf(stderr,
              "omptarget warning: SIMTARGET_CHECK=%s: unknown check `%.*s` "
              "(accepted: a comma list of stale); left out\n",
              value, (int)len, p);
    p += len + (p[len] == ',');
  }
  return bits;
}

static void read_environment(void) {
  free(plugins_copy);
  free(faults_copy);
  free(fault_counts_copy);
  free(trace_copy);
  free(profile_copy);
  profile_copy = list_setting("LIBOMPTARGET_PROFILE", true); /* a file */
  trace_copy = list_setting("SIMTARGET_TRACE", true); /* names a file */
  plugins_copy = list_setting("LIBOMPTARGET_PLUGINS", true);
  faults_copy = list_setting("SIMTARGET_FAULTS", false);
  fault_counts_copy = list_setting("SIMTARGET_FAULT_COUNTS", true);
  current = (struct settings){
      .debug_level = (int)integer_setting("LIBOMPTARGET_DEBUG", INT_MIN,
                                          INT_MAX, "an integer; 1 or more "
                                          "prints debug output", 0),
      /* -1 (all bits) and other negative values are taken as 32 bits, as
       * LLVM does. */
      .info_flags = (uint32_t)integer_setting(
          "LIBOMPTARGET_INFO", INT32_MIN, UINT32_MAX,
          "a 32-bit number of LIBOMPTARGET_INFO bits, decimal or 0x hex; -1 "
          "for all",
          0),
      .offload = offload_setting(),
      .default_device = (int)integer_setting(
          "OMP_DEFAULT_DEVICE", 0, INT_MAX, "a device number, 0 or more", 0),
      .nowait_waits = nowait_setting(),
      .checks = check_setting(),
      .plugins = plugins_copy,
      .faults = faults_copy,
      .fault_counts = fault_counts_copy,
      /* compiler teams (issue 16): the JSON trace, and constructs that
       * fail reported and run on the host instead of ending the program */
      .trace = trace_copy,
      .profile = profile_copy,
      .keep_going = integer_setting("SIMTARGET_KEEP_GOING", 0, 1,
                                    "0 or 1", 0) == 1,
      .omp_tool_named = env_value("OMP_TOOL_LIBRARIES") != NULL,
      .omp_tool_disabled = env_value("OMP_TOOL") &&
                           !strcasecmp(env_value("OMP_TOOL"), "disabled"),
  };
}

/* ------------------------------------------------- files the settings name */

static void warn_output_refused(const char *name, const char *path,
                                const char *why, const char *what) {
  fprintf(stderr,
          "omptarget warning: %s=%s %s; no %s is written\n", name, path,
          why, what);
}

/* A symbolic link is followed only when this program's user or root owns
 * it (the rule of Linux's fs.protected_symlinks): a link another user
 * planted at the name would redirect the output onto a file of theirs
 * choosing, while /dev/stderr (root's) or a user's own link are wanted. */
static int open_output_fd(const char *path, char *why, size_t why_size,
                          const char *what) {
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  struct stat link_st;
  if (fd < 0 && errno == ELOOP && lstat(path, &link_st) == 0 &&
      S_ISLNK(link_st.st_mode)) {
    if (link_st.st_uid == geteuid() || link_st.st_uid == 0) {
      fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    } else {
      snprintf(why, why_size,
               "is a symbolic link of user %u, not of this program's user "
               "%u or root: refused (it may have been planted to redirect "
               "the %s onto another file)",
               (unsigned)link_st.st_uid, (unsigned)geteuid(), what);
      return -1;
    }
  }
  if (fd < 0)
    snprintf(why, why_size, "cannot be opened for writing: %s",
             strerror(errno));
  return fd;
}

int settings_open_output(const char *name, const char *path,
                         const char *what) {
  /* No O_TRUNC: a file of another user must be refused before it is
   * emptied. */
  char why[256];
  int fd = open_output_fd(path, why, sizeof why, what);
  if (fd < 0) {
    warn_output_refused(name, path, why, what);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid != geteuid()) {
    snprintf(why, sizeof why,
             "is owned by user %u, not by this program's user %u: refused",
             (unsigned)st.st_uid, (unsigned)geteuid());
    warn_output_refused(name, path, why, what);
    close(fd);
    return -1;
  }
  if (S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
    snprintf(why, sizeof why, "cannot be emptied: %s", strerror(errno));
    warn_output_refused(name, path, why, what);
    close(fd);
    return -1;
  }
  return fd;
}

void settings_warn_write_failed(const char *name, const char *path, int err,
                                const char *where) {
  fprintf(stderr, "omptarget warning: %s=%s: writing failed: %s; %s\n",
          name, path, strerror(err), where);
}

const struct settings *settings_get(void) {
  pthread_once(&settings_once, read_environment);
  return &current;
}

#ifdef SIMTARGET_TEST_HOOKS
void settings_reread_for_test(void) {
  pthread_once(&settings_once, read_environment);
  read_environment();
}
#endif
