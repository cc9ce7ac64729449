/*
 * display.c - what device code can print about itself: omp_display_env and
 * the thread-affinity format routines (omp_set/get_affinity_format,
 * omp_display_affinity, omp_capture_affinity). The format takes the
 * specification's field types, short (%n) and long (%{thread_num}), with an
 * optional width (%5n, %.5n, %0-padding ignored beyond the width).
 *
 * Locks: the affinity format is guarded by format_lock.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_internal.h"
#include "simdev_rt.h"

static pthread_mutex_t format_lock = PTHREAD_MUTEX_INITIALIZER;
static char affinity_format[512] = "OMP: pid %P tid %i thread %n bound to OS proc set {%A}";

EXPORT void omp_set_affinity_format(const char *format)
{
  if (!format)
    return;
  pthread_mutex_lock(&format_lock);
  snprintf(affinity_format, sizeof affinity_format, "%s", format);
  pthread_mutex_unlock(&format_lock);
}

EXPORT size_t omp_get_affinity_format(char *buffer, size_t size)
{
  pthread_mutex_lock(&format_lock);
  size_t n = strlen(affinity_format);
  if (buffer && size > 0)
    snprintf(buffer, size, "%s", affinity_format);
  pthread_mutex_unlock(&format_lock);
  return n;
}

/* Appends to out (always NUL-terminated when size > 0); returns the length
 * the whole text needs. */
static size_t append(char *out, size_t size, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t append(char *out, size_t size, size_t at, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char piece[256];
  int n = vsnprintf(piece, sizeof piece, fmt, ap);
  va_end(ap);
  if (n < 0)
    return at;
  if (out && at < size)
    snprintf(out + at, size - at, "%s", piece);
  return at + (size_t)n;
}

static const struct {
  char letter;
  const char *name;
} fields[] = {{'t', "team_num"}, {'T', "num_teams"}, {'L', "nesting_level"},
              {'n', "thread_num"}, {'N', "num_threads"}, {'a', "ancestor_tnum"},
              {'H', "host"}, {'P', "process_id"}, {'i', "native_thread_id"},
              {'A', "thread_affinity"}};

static size_t format_affinity(char *out, size_t size, const char *format)
{
  struct rt_member *m = rt_current();
  size_t at = 0;
  if (out && size)
    out[0] = '\0';
  for (const char *p = format; *p; p++) {
    if (*p != '%') {
      at = append(out, size, at, "%c", *p);
      continue;
    }
    p++;
    int width = 0;
    while (*p == '0' || *p == '.')
      p++;
    while (*p >= '0' && *p <= '9')
      width = width * 10 + (*p++ - '0');
    char letter = *p;
    if (*p == '{') {
      const char *close = strchr(p, '}');
      letter = '?';
      for (size_t f = 0; close && f < sizeof(fields) / sizeof(fields[0]); f++)
        if (strlen(fields[f].name) == (size_t)(close - p - 1) &&
            strncmp(p + 1, fields[f].name, (size_t)(close - p - 1)) == 0)
          letter = fields[f].letter;
      p = close ? close : p + strlen(p) - 1;
    }
    char host[64] = "";
    switch (letter) {
    case 't': at = append(out, size, at, "%*d", width, omp_get_team_num()); break;
    case 'T': at = append(out, size, at, "%*d", width, omp_get_num_teams()); break;
    case 'L': at = append(out, size, at, "%*d", width, omp_get_level()); break;
    case 'n': at = append(out, size, at, "%*d", width, m->tid); break;
    case 'N': at = append(out, size, at, "%*d", width, m->team->nthreads); break;
    case 'a': at = append(out, size, at, "%*d", width, omp_get_ancestor_thread_num(omp_get_level() - 1)); break;
    case 'H': gethostname(host, sizeof host - 1); at = append(out, size, at, "%*s", width, host); break;
    case 'P': at = append(out, size, at, "%*d", width, (int)getpid()); break;
    case 'i': at = append(out, size, at, "%*ld", width, (long)syscall(SYS_gettid)); break;
    case 'A': at = append(out, size, at, "%*s0-%d", width, "", rt_caps()->ncpus - 1); break;
    case '%': at = append(out, size, at, "%%"); break;
    case '\0': p--; break;
    default: at = append(out, size, at, "%%%c", letter);
    }
  }
  return at;
}

EXPORT size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
  char fmt[512];
  if (!format || !*format) {
    omp_get_affinity_format(fmt, sizeof fmt);
    format = fmt;
  }
  return format_affinity(buffer, size, format);
}

EXPORT void omp_display_affinity(const char *format)
{
  char line[1024];
  omp_capture_affinity(line, sizeof line, format);
  printf("%s\n", line);
}

EXPORT void omp_display_env(int verbose)
{
  int32_t teams, threads;
  char format[512];
  simdev_rt_limits(&teams, &threads);
  omp_get_affinity_format(format, sizeof format);
  printf("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n"
         "  _OPENMP = '201811'\n"
         "  [device] OMP_DYNAMIC = '%s'\n"
         "  [device] OMP_MAX_ACTIVE_LEVELS = '1'\n"
         "  [device] OMP_NUM_TEAMS = '%d'\n"
         "  [device] OMP_TEAMS_THREAD_LIMIT = '%d'\n"
         "  [device] OMP_THREAD_LIMIT = '%d'\n"
         "  [device] OMP_CANCELLATION = 'FALSE'\n"
         "  [device] OMP_PROC_BIND = 'false'\n"
         "  [device] OMP_AFFINITY_FORMAT = '%s'\n",
         rt_dynamic_threads() ? "TRUE" : "FALSE", omp_get_max_teams(),
         omp_get_teams_thread_limit(), threads, format);
  if (verbose)
    printf("  [device] SIMDEVICE_MAX_TEAMS = '%d'\n  [device] SIMDEVICE_MAX_THREADS = '%d'\n",
           teams, threads);
  printf("OPENMP DISPLAY ENVIRONMENT END\n\n");
}
