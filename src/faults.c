/*
 * faults.c - the fault injector behind RTL_CALL (faults.h): rules from
 * SIMTARGET_FAULTS or faults_configure(), per-site and per-function call
 * counters, one failing stub per TGT_RTL_INTERFACE row, and the counting
 * mode that feeds the sweep (tests/faults.sh).
 *
 * Locking: `config_mutex` serialises faults_configure()/faults_reset(); the
 * rules they write are read without a lock by faults_pick(), so the
 * configuration must be set before other threads call plugins (the library
 * constructor, or a unit test's setup). Counters are atomics.
 * `counts_file_mutex` guards appending to the counts file
 * (SIMTARGET_FAULT_COUNTS): an injection line (from any thread calling a
 * plugin) and the counts written at exit never interleave. It is taken
 * alone, never with `config_mutex`.
 */
#include "faults.h"
#include "lock_check.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_RULES 32

enum rule_target { RULE_FUNCTION, RULE_SITE };

struct fault_rule {
  enum rule_target target;
  int index;     /* enum fault_fn or enum fault_site */
  uint64_t nth;  /* the call (1-based, counted for the target) that fails */
  bool repeat;   /* and every later one */
};

int faults_armed;
static pthread_mutex_t config_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t counts_file_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct fault_rule rules[MAX_RULES];
static int rule_count;
static bool counting;
static bool absent[FAULT_FN_COUNT];
static _Atomic uint64_t site_calls[FAULT_SITE_LIMIT];
static _Atomic uint64_t fn_calls[FAULT_FN_COUNT];
static _Atomic uint64_t injected;

/* ---- names -------------------------------------------------------------- */

static const char *const fn_names[FAULT_FN_COUNT] = {
#define FN_NAME(req, ret, name, params, args, fail) #name,
    TGT_RTL_INTERFACE(FN_NAME)
#undef FN_NAME
};

static const bool fn_required[FAULT_FN_COUNT] = {
#define FN_REQUIRED(req, ret, name, params, args, fail) req,
    TGT_RTL_INTERFACE(FN_REQUIRED)
#undef FN_REQUIRED
};

static const struct {
  const char *id;
  enum fault_fn fn;
  const char *where;
} sites[FAULT_SITE_LIMIT] = {
#define SITE_ROW(num, sid, fn, wh) [num] = {#sid, FAULT_FN_##fn, wh},
    FAULT_SITES(SITE_ROW)
#undef SITE_ROW
};

const char *faults_function_name(enum fault_fn fn) {
  return (int)fn >= 0 && fn < FAULT_FN_COUNT ? fn_names[fn] : NULL;
}

int faults_function_by_name(const char *name) {
  if (!strncmp(name, "__tgt_rtl_", 10))
    name += 10;
  for (int i = 0; i < FAULT_FN_COUNT; i++)
    if (!strcmp(fn_names[i], name))
      return i;
  return -1;
}

const char *faults_site_name(int site) {
  return site > 0 && site < FAULT_SITE_LIMIT ? sites[site].id : NULL;
}

int faults_site_by_name(const char *name) {
  char *end;
  long n = strtol(name, &end, 10);
  if (end != name && *end == '\0')
    return n > 0 && n < FAULT_SITE_LIMIT && sites[n].id ? (int)n : -1;
  for (int i = 1; i < FAULT_SITE_LIMIT; i++)
    if (sites[i].id && !strcasecmp(sites[i].id, name))
      return i;
  return -1;
}

/* ---- the failing stubs, one per interface row ---------------------------- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define FAIL_STUB(req, ret, name, params, args, fail)                          \
  static ret fault_stub_##name params { return fail; }
TGT_RTL_INTERFACE(FAIL_STUB)
#undef FAIL_STUB
#pragma GCC diagnostic pop

static const fault_any_fn fail_stubs[FAULT_FN_COUNT] = {
#define STUB_ROW(req, ret, name, params, args, fail)                           \
  (fault_any_fn)fault_stub_##name,
    TGT_RTL_INTERFACE(STUB_ROW)
#undef STUB_ROW
};

/* ---- the hook ------------------------------------------------------------ */

static bool rule_matches(const struct fault_rule *r, uint64_t call) {
  return r->repeat ? call >= r->nth : call == r->nth;
}

/* A record of each injection in the counts file, so the sweep can tell
 * that the fault it asked for really happened. */
static void note_injection(enum fault_site site, enum fault_fn fn,
                           uint64_t call) {
  report_debug("fault injected: __tgt_rtl_%s fails at site %d (%s, %s), "
               "call %" PRIu64,
               fn_names[fn], (int)site, sites[site].id, sites[site].where,
               call);
  const char *counts_path = settings_get()->fault_counts;
  if (!counts_path)
    return;
  char line[256];
  int n = snprintf(line, sizeof line, "injected %d %s %s %" PRIu64 "\n",
                   (int)site, sites[site].id, fn_names[fn], call);
  pthread_mutex_lock(&counts_file_mutex);
  /* O_NOFOLLOW: a symlink planted in /tmp must not redirect the lines. */
  int fd = open(counts_path,
                O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd >= 0) {
    if (write(fd, line, (size_t)n) != n)
      report_debug("fault injector: short write to %s", counts_path);
    close(fd);
  }
  pthread_mutex_unlock(&counts_file_mutex);
}

fault_any_fn faults_pick(enum fault_site site, enum fault_fn fn,
                         fault_any_fn real) {
  if ((int)site <= 0 || site >= FAULT_SITE_LIMIT || (int)fn < 0 ||
      fn >= FAULT_FN_COUNT)
    return real;
  uint64_t at_site = atomic_fetch_add(&site_calls[site], 1) + 1;
  uint64_t of_fn = atomic_fetch_add(&fn_calls[fn], 1) + 1;
  for (int i = 0; i < rule_count; i++) {
    const struct fault_rule *r = &rules[i];
    bool hit = r->target == RULE_SITE
                   ? r->index == (int)site && rule_matches(r, at_site)
                   : r->index == (int)fn && rule_matches(r, of_fn);
    if (hit) {
      atomic_fetch_add(&injected, 1);
      note_injection(site, fn, r->target == RULE_SITE ? at_site : of_fn);
      return fail_stubs[fn];
    }
  }
  return real;
}

/* ---- configuration ------------------------------------------------------- */

/* Caller holds config_mutex. */
static void reset_locked(void) {
  LOCK_ASSERT_HELD(&config_mutex);
  faults_armed = 0;
  rule_count = 0;
  counting = false;
  memset(absent, 0, sizeof absent);
  for (int i = 0; i < FAULT_SITE_LIMIT; i++)
    atomic_store(&site_calls[i], 0);
  for (int i = 0; i < FAULT_FN_COUNT; i++)
    atomic_store(&fn_calls[i], 0);
  atomic_store(&injected, 0);
}

void faults_reset(void) {
  pthread_mutex_lock(&config_mutex);
  reset_locked();
  pthread_mutex_unlock(&config_mutex);
}

/* One rule: count | absent=FN | plugin.point... | TARGET[@N][:once|:repeat]
 * with TARGET = FN | site=NUMBER | site=ID. Modifies `text`. Caller holds
 * config_mutex (the rule lands in `rules`). */
static int parse_rule(char *text, char *why, size_t why_len) {
  LOCK_ASSERT_HELD(&config_mutex);
  if (!strcmp(text, "count")) {
    counting = true;
    return 0;
  }
  if (!strncmp(text, "absent=", 7)) {
    int fn = faults_function_by_name(text + 7);
    if (fn < 0 || fn_required[fn]) {
      snprintf(why, why_len,
               "'%s': absent= takes an optional __tgt_rtl_ function "
               "(init_plugin, data_exchange, ...)",
               text);
      return -1;
    }
    absent[fn] = true;
    return 0;
  }
  struct fault_rule r = {.nth = 1};
  char *mode = strchr(text, ':');
  if (mode) {
    *mode++ = '\0';
    if (!strcmp(mode, "repeat"))
      r.repeat = true;
    else if (strcmp(mode, "once")) {
      snprintf(why, why_len, "'%s:%s': the mode is 'once' or 'repeat'", text,
               mode);
      return -1;
    }
  }
  char *at = strchr(text, '@');
  if (at) {
    *at++ = '\0';
    char *end;
    unsigned long long n = strtoull(at, &end, 10);
    if (end == at || *end || n == 0) {
      snprintf(why, why_len, "'%s@%s': the call number is 1 or more", text,
               at);
      return -1;
    }
    r.nth = n;
  }
  const char *dot = strchr(text, '.');
  if (dot && !strchr(text, '='))
    return 0; /* a plugin's own failure point ("simdevice.spawn") */
  if (!strncmp(text, "site=", 5)) {
    r.target = RULE_SITE;
    r.index = faults_site_by_name(text + 5);
    if (r.index < 0) {
      snprintf(why, why_len,
               "'%s': no such call site (numbers and names are in "
               "src/fault_sites.h)",
               text);
      return -1;
    }
  } else {
    r.target = RULE_FUNCTION;
    r.index = faults_function_by_name(text);
    if (r.index < 0) {
      snprintf(why, why_len, "'%s' is not a __tgt_rtl_ function", text);
      return -1;
    }
  }
  if (rule_count == MAX_RULES) {
    snprintf(why, why_len, "more than %d rules", MAX_RULES);
    return -1;
  }
  rules[rule_count++] = r;
  return 0;
}

int faults_configure(const char *spec, char *why, size_t why_len) {
  if (why_len)
    why[0] = '\0';
  pthread_mutex_lock(&config_mutex);
  reset_locked();
  int rc = 0;
  char *copy = strdup(spec ? spec : "");
  if (!copy) {
    snprintf(why, why_len, "out of memory");
    rc = -1;
    goto out_unlock;
  }
  char *save = NULL;
  for (char *rule = strtok_r(copy, ", ", &save); rule;
       rule = strtok_r(NULL, ", ", &save))
    if (parse_rule(rule, why, why_len) < 0) {
      reset_locked();
      rc = -1;
      break;
    }
  free(copy);
  if (rc == 0)
    faults_armed = rule_count > 0 || counting;
out_unlock:
  pthread_mutex_unlock(&config_mutex);
  return rc;
}

bool faults_absent(enum fault_fn fn) {
  return (int)fn >= 0 && fn < FAULT_FN_COUNT && absent[fn];
}

uint64_t faults_site_calls(enum fault_site site) {
  return (int)site > 0 && site < FAULT_SITE_LIMIT ? atomic_load(&site_calls[site])
                                                  : 0;
}

uint64_t faults_function_calls(enum fault_fn fn) {
  return (int)fn >= 0 && fn < FAULT_FN_COUNT ? atomic_load(&fn_calls[fn]) : 0;
}

uint64_t faults_injected(void) { return atomic_load(&injected); }

int faults_write_counts(const char *path) {
  pthread_mutex_lock(&counts_file_mutex);
  int rc = -1;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                0644);
  FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
  if (!f) {
    if (fd >= 0)
      close(fd);
    goto out_unlock;
  }
  for (int s = 1; s < FAULT_SITE_LIMIT; s++)
    if (sites[s].id)
      fprintf(f, "site %d %s %s %" PRIu64 "\n", s, sites[s].id,
              fn_names[sites[s].fn], atomic_load(&site_calls[s]));
  for (int i = 0; i < FAULT_FN_COUNT; i++)
    fprintf(f, "function %s %" PRIu64 "\n", fn_names[i],
            atomic_load(&fn_calls[i]));
  rc = fclose(f) == 0 ? 0 : -1;
out_unlock:
  pthread_mutex_unlock(&counts_file_mutex);
  return rc;
}

/* ---- the environment ----------------------------------------------------- */

__attribute__((constructor)) static void faults_from_env(void) {
  const char *spec = settings_get()->faults;
  if (!spec)
    return;
  char why[256];
  if (faults_configure(spec, why, sizeof why) < 0)
    report_error("SIMTARGET_FAULTS=%s is ignored: %s", spec, why);
}

/* After every other destructor of the library (lower priority runs later),
 * so the plugin calls made while releasing devices are counted. */
__attribute__((destructor(101))) static void faults_at_exit(void) {
  if (!counting)
    return;
  const char *counts_path = settings_get()->fault_counts;
  if (!counts_path) {
    report_error("SIMTARGET_FAULTS=count: set SIMTARGET_FAULT_COUNTS to a "
                 "file to receive the counts");
    return;
  }
  if (faults_write_counts(counts_path) < 0)
    report_error("SIMTARGET_FAULTS=count: cannot write %s", counts_path);
}
