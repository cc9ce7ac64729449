/*
 * settings.c - the plugin's only reader of the environment. Every variable
 * is read and validated once, at the first plugin_settings() call; a value
 * that is not accepted gets one warning on stderr naming the variable and
 * what it accepts, and the default is used. simdevice/README.md has the
 * table of all variables (plugin, server and device runtime).
 *
 * Locking: the settings are written once under a pthread_once and only
 * read afterwards.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_internal.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#define DEFAULT_DEVICES 1
#define FALLBACK_MEMORY (1ull << 30) /* size unknown, or under Valgrind */
/* SIMDEVICE_VALGRIND=memcheck: memcheck's origin tracking (--track-origins)
 * spends about 35 s on a 1 GiB mapping, 1 s on 256 MiB. */
#define MEMCHECK_MEMORY (256ull << 20)
/* The device process's threads sleep until the host posts work, then run
 * briefly: a short slice lets the scheduler run them at once when they wake
 * instead of after the slice of a thread that spins on the same CPU (libomp
 * waiting in a taskwait, say). On the 2-core test VM, 8 host threads x 200
 * `target nowait` regions: the device threads' average wait for a CPU after
 * a wake went from 4.4 ms to 0.9 ms (`perf sched latency`). */
#define DEFAULT_SLICE_US 100

static struct plugin_settings settings;
static const char default_search_path[] = "/usr/bin:/bin";
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

/* Device memory by default: the machine's physical memory, as a GPU has
 * tens of GiB; it costs nothing until touched (a sparse memfd), and at most
 * one device stride (1T) of address space per device. Under Valgrind, whose
 * bookkeeping of a mapping that large takes minutes, the old 1 GiB. */
static uint64_t default_memory(int devices, int valgrind) {
  if (RUNNING_ON_VALGRIND)
    return FALLBACK_MEMORY;
  if (valgrind == VALGRIND_MEMCHECK)
    return MEMCHECK_MEMORY;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return FALLBACK_MEMORY;
  uint64_t bytes = (uint64_t)pages * (uint64_t)page;
  if (bytes > SIMDEV_DEVICE_STRIDE)
    bytes = SIMDEV_DEVICE_STRIDE;
  /* Under an address-space limit (ulimit -v, RLIMIT_AS): the host maps
   * each device's memory twice (its reservation and its view), so devices
   * get a quarter of the address space left between them, the other half
   * staying the program's. */
  uint64_t left = address_space_left();
  uint64_t fit = left / 4 / (uint64_t)(devices > 0 ? devices : 1);
  fit &= ~((1ull << 20) - 1);
  if (left != UINT64_MAX && fit < bytes)
    bytes = fit > 0 ? fit : 1ull << 20;
  return bytes;
}

uint64_t address_space_left(void) {
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  unsigned long long size = 0;
  FILE *f = fopen("/proc/self/statm", "re");
  if (f != NULL) {
    if (fscanf(f, "%llu", &size) != 1)
      size = 0;
    fclose(f);
  }
  long page = sysconf(_SC_PAGESIZE);
  uint64_t used = (uint64_t)size * (uint64_t)(page > 0 ? page : 4096);
  return (uint64_t)as.rlim_cur > used ? (uint64_t)as.rlim_cur - used : 0;
}

/* "123", "64K", "512M", "2G" (powers of 1024). Returns 0 or -1. */
static int parse_bytes(const char *text, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || end == text || text[0] == '-')
    return -1;
  unsigned shift = 0;
  switch (toupper((unsigned char)*end)) {
  case '\0': break;
  case 'K': shift = 10; end++; break;
  case 'M': shift = 20; end++; break;
  case 'G': shift = 30; end++; break;
  case 'T': shift = 40; end++; break;
  default: return -1;
  }
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end != '\0' || (shift && v > (~0ull >> shift)))
    return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

/* The variable's value, or NULL when unset or empty; used at once. */
static const char *read_var(const char *name) {
  const char *v = getenv(name);
  return v != NULL && *v != '\0' ? v : NULL;
}

/* The same, as a copy kept in the settings: a later setenv must not change
 * (or free) what was read. `secure`: the value names a program or a file,
 * so it is ignored in a setuid/setgid/setcap process (secure_getenv). */
static const char *keep_var(const char *name, int secure) {
  const char *v = secure ? secure_getenv(name) : getenv(name);
  if (v != NULL && *v == '\0')
    v = NULL;
  if (v == NULL)
    return NULL;
  const char *copy = strdup(v);
  if (copy == NULL)
    fprintf(stderr, "simdevice: %s is ignored: no memory to keep it\n", name);
  return copy;
}

static void rejected(const char *name, const char *value, const char *accepted,
                     const char *dflt) {
  fprintf(stderr, "simdevice: %s=\"%.60s\" is not %s; using %s\n", name, value,
          accepted, dflt);
}

/* A whole decimal number from lo to hi. Returns 0, or -1 for anything
 * else (other text, out of range). */
static int parse_number(const char *text, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long n = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || n < lo || n > hi)
    return -1;
  *out = n;
  return 0;
}

/* A 0/1 setting that is on unless set to 0; anything else is rejected. */
static int read_switch(const char *name) {
  const char *v = read_var(name);
  if (v == NULL || strcmp(v, "1") == 0)
    return 1;
  if (strcmp(v, "0") == 0)
    return 0;
  rejected(name, v, "0 or 1", "1");
  return 1;
}

/* SIMDEVICE_VALGRIND: memcheck, helgrind or drd (it names a program to
 * run, so a setuid or setcap program ignores it, as SIMDEVICE_WRAPPER). */
static int read_valgrind_tool(void) {
  const char *v = secure_getenv("SIMDEVICE_VALGRIND");
  /* A device of another machine runs under qemu: Valgrind would check
   * qemu, not the device code. */
  if (v == NULL || *v == '\0' || DEVICE_FOREIGN)
    return VALGRIND_NONE;
  static const char *const names[] = {"memcheck", "helgrind", "drd"};
  for (int i = 0; i < 3; i++)
    if (strcmp(v, names[i]) == 0)
      return i + 1;
  rejected("SIMDEVICE_VALGRIND", v, "memcheck, helgrind or drd",
           "no Valgrind");
  return VALGRIND_NONE;
}

static void read_settings(void) {
  settings.num_devices = DEFAULT_DEVICES;
  const char *v = read_var(DEVICE_COUNT_VAR);
  long n;
  if (v != NULL) {
    if (parse_number(v, 0, PLUGIN_MAX_DEVICES, &n) != 0) {
      char accepted[64];
      snprintf(accepted, sizeof accepted, "a number from 0 to %d",
               PLUGIN_MAX_DEVICES);
      rejected(DEVICE_COUNT_VAR, v, accepted, "1");
    } else {
      settings.num_devices = (int)n;
    }
  }
  settings.valgrind = read_valgrind_tool();
  settings.host_under_valgrind = RUNNING_ON_VALGRIND != 0;
  settings.memory = default_memory(settings.num_devices, settings.valgrind);
  long page = sysconf(_SC_PAGESIZE);
  settings.page_bytes = page > 0 ? (uint64_t)page : 4096;
  v = read_var("SIMDEVICE_MEMORY");
  uint64_t bytes = 0;
  if (v != NULL) {
    if (parse_bytes(v, &bytes) != 0 || bytes == 0 ||
        bytes > SIMDEV_DEVICE_STRIDE)
      rejected("SIMDEVICE_MEMORY", v,
               "a size from 1 byte to 1T (K, M, G or T suffix)",
               "the machine's physical memory");
    else
      settings.memory = bytes;
  }
  settings.guard = read_switch("SIMDEVICE_GUARD");
  settings.early_start = read_switch("SIMDEVICE_EARLY_START");
  settings.slice_us = DEFAULT_SLICE_US;
  v = read_var("SIMDEVICE_SLICE_US");
  if (v != NULL) {
    if (parse_number(v, 0, 100000, &n) != 0 || (n != 0 && n < 100))
      rejected("SIMDEVICE_SLICE_US", v,
               "0 or a number of microseconds from 100 to 100000", "100");
    else
      settings.slice_us = (unsigned)n;
  }
  v = read_var("SIMDEVICE_TIMEOUT");
  if (v != NULL) {
    if (parse_number(v, 0, 86400, &n) != 0)
      rejected("SIMDEVICE_TIMEOUT", v, "a number of seconds from 0 to 86400",
               "0 (no timeout)");
    else
      settings.timeout_s = (unsigned)n;
  }
  /* Paths and commands: checked where they are used (process.c), since a
   * missing server only matters when a device starts. They name code or
   * files, so a setuid or setcap program ignores them (secure_getenv). */
  settings.server = keep_var(DEVICE_SERVER_VAR, 1);
  settings.wrapper = keep_var("SIMDEVICE_WRAPPER", 1);
  if (settings.valgrind != VALGRIND_NONE && settings.wrapper != NULL) {
    fprintf(stderr, "simdevice: SIMDEVICE_WRAPPER is ignored: "
                    "SIMDEVICE_VALGRIND puts Valgrind in front of the "
                    "device process\n");
    free((void *)settings.wrapper);
    settings.wrapper = NULL;
  }
  settings.qemu = keep_var("SIMDEVICE_QEMU", 1);
  settings.sysroot = keep_var("SIMDEVICE_PPC64LE_SYSROOT", 1);
  settings.sanitizer_runtime = keep_var("SIMDEVICE_SANITIZER_RUNTIME", 1);
  settings.search_path = keep_var("PATH", 1);
  if (settings.search_path == NULL)
    settings.search_path = default_search_path;
  /* Rules are checked one by one by faults.c, which names a bad one. */
  settings.faults_simtarget = keep_var("SIMTARGET_FAULTS", 0);
  settings.faults_simdevice = keep_var("SIMDEVICE_FAULTS", 0);
  settings.fault_counts = keep_var("SIMTARGET_FAULT_COUNTS", 1);
}

/* At dlclose or exit: the kept copies go with the plugin. libomptarget
 * closes a plugin it does not use (the ppc64le one in an x86-64 program),
 * and a leak checker would report copies left behind by a closed library.
 * Priority 101: after every other destructor of the library (the fault
 * counts are written by one), the last to use the settings. */
__attribute__((destructor(101))) static void settings_release(void) {
  const char **kept[] = {&settings.server,           &settings.wrapper,
                         &settings.faults_simtarget, &settings.faults_simdevice,
                         &settings.fault_counts,     &settings.qemu,
                         &settings.sysroot,          &settings.sanitizer_runtime};
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
    free((void *)*kept[i]);
    *kept[i] = NULL;
  }
  if (settings.search_path != default_search_path)
    free((void *)settings.search_path);
  settings.search_path = default_search_path; /* never NULL */
}

const struct plugin_settings *plugin_settings(void) {
  pthread_once(&settings_once, read_settings);
  return &settings;
}
