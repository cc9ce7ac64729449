/*
 * faults.c - fault injection at the simdevice plugin's own failure points
 * (plugin_faults.h): rules from SIMTARGET_FAULTS ("simdevice.POINT...") and
 * SIMDEVICE_FAULTS ("POINT..."), both with the grammar of src/faults.c:
 * POINT[@N][:once|:repeat]. Unknown points are reported on stderr and
 * ignored; rules of libomptarget itself are left to it.
 *
 * Locking: the rules are written once by sim_faults_configure, which the
 * device table's pthread_once runs before any failure point can be reached
 * (each is behind device_get), and only read afterwards; the counters are
 * atomics.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_faults.h"
#include "plugin_internal.h"

#define MAX_SIM_RULES 16

struct sim_rule {
  enum sim_fault_point point;
  uint64_t nth;
  int repeat;
};

int sim_faults_armed;
static struct sim_rule rules[MAX_SIM_RULES];
static int rule_count;
static int counting;
static _Atomic uint64_t calls[SIM_FAULT_COUNT];

static const char *const point_names[SIM_FAULT_COUNT] = {
#define SIM_FAULT_NAME(id, name) #name,
    SIM_FAULT_POINTS(SIM_FAULT_NAME)
#undef SIM_FAULT_NAME
};

const char *sim_fault_name(enum sim_fault_point point) {
  return (int)point >= 0 && point < SIM_FAULT_COUNT ? point_names[point] : "?";
}

/* One injection, one line in the counts file (the sweep checks it). */
static void note(const char *what, enum sim_fault_point point, uint64_t n) {
  const char *path = plugin_settings()->fault_counts;
  if (path == NULL)
    return;
  char line[128];
  int len = snprintf(line, sizeof line, "%s simdevice.%s %llu\n", what,
                     point_names[point], (unsigned long long)n);
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                0644); /* not through a symlink planted in /tmp */
  if (fd < 0)
    return;
  if (write(fd, line, (size_t)len) != len)
    fprintf(stderr, "simdevice: short write to %s\n", path);
  close(fd);
}

int sim_fault_hit(enum sim_fault_point point) {
  if ((int)point < 0 || point >= SIM_FAULT_COUNT)
    return 0;
  uint64_t n = atomic_fetch_add(&calls[point], 1) + 1;
  for (int i = 0; i < rule_count; i++)
    if (rules[i].point == point &&
        (rules[i].repeat ? n >= rules[i].nth : n == rules[i].nth)) {
      note("injected", point, n);
      return 1;
    }
  return 0;
}

/* `text` is POINT[@N][:once|:repeat]; 0, or -1 when it is not valid. */
static int parse_rule(char *text) {
  struct sim_rule r = {.nth = 1};
  char *mode = strchr(text, ':');
  if (mode != NULL) {
    *mode++ = '\0';
    if (strcmp(mode, "repeat") == 0)
      r.repeat = 1;
    else if (strcmp(mode, "once") != 0)
      return -1;
  }
  char *at = strchr(text, '@');
  if (at != NULL) {
    *at++ = '\0';
    char *end;
    r.nth = strtoull(at, &end, 10);
    if (end == at || *end != '\0' || r.nth == 0)
      return -1;
  }
  int found = -1;
  for (int i = 0; i < SIM_FAULT_COUNT; i++)
    if (strcmp(text, point_names[i]) == 0)
      found = i;
  if (found < 0 || rule_count == MAX_SIM_RULES)
    return -1;
  r.point = (enum sim_fault_point)found;
  rules[rule_count++] = r;
  return 0;
}

/* `spec` is the value of `var` (settings.c); `own_prefix`: only rules
 * starting with it are ours (it is stripped). */
static void parse_spec(const char *var, const char *spec,
                       const char *own_prefix) {
  if (spec == NULL)
    return;
  char *copy = strdup(spec);
  if (copy == NULL) {
    fprintf(stderr, "simdevice: %s is ignored: out of memory\n", var);
    return;
  }
  size_t plen = strlen(own_prefix);
  char *save = NULL;
  for (char *rule = strtok_r(copy, ", ", &save); rule != NULL;
       rule = strtok_r(NULL, ", ", &save)) {
    if (strcmp(rule, "count") == 0 && plen > 0) {
      counting = 1;
      continue;
    }
    if (strncmp(rule, own_prefix, plen) != 0)
      continue; /* libomptarget's, or another plugin's */
    char shown[128];
    snprintf(shown, sizeof shown, "%s", rule);
    if (parse_rule(rule + plen) != 0)
      fprintf(stderr,
              "simdevice: %s: rule '%s' is ignored (points: spawn, "
              "channel_write, channel_read, shm_map, image_write, dlopen; "
              "then @N and :once or :repeat)\n",
              var, shown);
  }
  free(copy);
}

void sim_faults_configure(void) {
  const struct plugin_settings *set = plugin_settings();
  parse_spec("SIMTARGET_FAULTS", set->faults_simtarget, "simdevice.");
  parse_spec("SIMDEVICE_FAULTS", set->faults_simdevice, "");
  sim_faults_armed = rule_count > 0 || counting;
}

__attribute__((destructor)) static void sim_faults_at_exit(void) {
  if (!counting)
    return;
  for (int i = 0; i < SIM_FAULT_COUNT; i++)
    note("simdevice", (enum sim_fault_point)i, atomic_load(&calls[i]));
}
