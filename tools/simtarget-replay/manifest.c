/* manifest.c - reads a recording's manifest.txt (simdevice/plugin/record.c
 * writes it: one `key value...` line each). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"

static int add_span(struct manifest *m, const char *name, uint64_t addr,
                    uint64_t size) {
  struct rec_span *s = realloc(m->spans, (m->span_count + 1) * sizeof *s);
  if (s == NULL)
    return -1;
  m->spans = s;
  s[m->span_count++] = (struct rec_span){
      name ? strdup(name) : NULL, addr, size, m->bytes};
  m->bytes += size;
  return 0;
}

static int add_entry(struct manifest *m, const char *line) {
  struct rec_image *im = &m->images[m->image_count - 1];
  int flags;
  unsigned long long size, addr;
  char name[1024];
  if (m->image_count == 0 || im->filled == im->count ||
      sscanf(line, "entry %d %llu %llx %1023s", &flags, &size, &addr, name) != 4)
    return -1;
  __tgt_offload_entry *e = &im->entries[im->filled++];
  e->addr = (void *)(uintptr_t)addr; /* the recorded device address */
  e->name = strcmp(name, "-") == 0 ? NULL : strdup(name);
  e->size = size;
  e->flags = flags;
  return 0;
}

static int add_image(struct manifest *m, const char *line) {
  char file[256];
  unsigned long long count;
  int index;
  if (m->image_count == 16 ||
      sscanf(line, "image %d %255s %llu", &index, file, &count) != 3)
    return -1;
  struct rec_image *im = &m->images[m->image_count++];
  im->file = strdup(file);
  im->count = count;
  im->entries = calloc(count ? count : 1, sizeof *im->entries);
  return im->file && im->entries ? 0 : -1;
}

static int parse_line(struct manifest *m, char *line) {
  unsigned long long a, b;
  char name[1024];
  line[strcspn(line, "\n")] = '\0';
  if (sscanf(line, "device %d", &m->device) == 1 ||
      sscanf(line, "guard %d", &m->guard) == 1 ||
      sscanf(line, "num_teams %d", &m->num_teams) == 1 ||
      sscanf(line, "thread_limit %d", &m->thread_limit) == 1 ||
      sscanf(line, "kernel %1023s", m->kernel) == 1)
    return 0;
  if (strncmp(line, "format ", 7) == 0)
    return snprintf(m->format, sizeof m->format, "%.60s", line + 7), 0;
  if (strncmp(line, "simtarget_version ", 18) == 0)
    return snprintf(m->version, sizeof m->version, "%.120s", line + 18), 0;
  if (sscanf(line, "machine %31s", m->machine) == 1)
    return 0;
  if (strcmp(line, "stack_limit unlimited") == 0)
    return m->has_stack_limit = 1, m->stack_limit = ULLONG_MAX, 0;
  if (sscanf(line, "stack_limit %llu", &a) == 1)
    return m->has_stack_limit = 1, m->stack_limit = a, 0;
  if (sscanf(line, "cpus %d", &m->cpus) == 1)
    return 0;
  if (strncmp(line, "env ", 4) == 0) {
    char var[64], value[101];
    if (m->env_count == 8 || sscanf(line, "env %63s %100s", var, value) != 2)
      return -1;
    snprintf(m->env[m->env_count++], sizeof m->env[0], "%s=%s", var, value);
    return 0;
  }
  if (sscanf(line, "device_base %llx", &a) == 1)
    return m->device_base = a, 0;
  if (sscanf(line, "page_size %llu", &a) == 1)
    return m->page_size = a, 0;
  if (sscanf(line, "device_memory %llu", &a) == 1)
    return m->device_memory = a, 0;
  if (sscanf(line, "args %d", &m->arg_num) == 1)
    return m->arg_num < 0 || m->arg_num > 256 ? -1 : 0;
  if (sscanf(line, "arg %llx", &a) == 1)
    return m->args_filled < m->arg_num ? (m->args[m->args_filled++] = a, 0)
                                       : -1;
  if (strncmp(line, "compiler ", 9) == 0)
    return snprintf(m->compiler, sizeof m->compiler, "%.200s", line + 9), 0;
  if (strncmp(line, "image ", 6) == 0)
    return add_image(m, line);
  if (strncmp(line, "entry ", 6) == 0)
    return add_entry(m, line);
  if (sscanf(line, "block %llx %llu", &a, &b) == 2)
    return add_span(m, NULL, a, b);
  if (sscanf(line, "global %1023s %llx %llu", name, &a, &b) == 3)
    return add_span(m, name, a, b);
  if (strncmp(line, "outcome fault ", 14) == 0) {
    m->faulted = 1;
    return snprintf(m->message, sizeof m->message, "%.1000s", line + 14), 0;
  }
  return 0; /* program, version, ...: words for people */
}

int manifest_read(const char *dir, struct manifest *m) {
  char path[4200], line[4200];
  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  memset(m, 0, sizeof *m);
  FILE *f = fopen(path, "re");
  if (f == NULL) {
    perror(path);
    return -1;
  }
  int rc = 0, n = 0;
  while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
    n++;
    rc = parse_line(m, line);
  }
  fclose(f);
  if (rc != 0 || m->kernel[0] == '\0' || m->image_count == 0) {
    fprintf(stderr, "simtarget-replay: %s: not a recording (%s line %d)\n",
            path, rc ? "bad" : "no kernel or image by", n);
    return -1;
  }
  return 0;
}

#if defined(__x86_64__)
#define HOST_MACHINE "x86-64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_MACHINE "ppc64le"
#else
#define HOST_MACHINE "unknown"
#endif
const char *replay_host_machine(void) { return HOST_MACHINE; }

int manifest_check(const char *dir, const struct manifest *m) {
  if (strcmp(m->format, "simtarget-record 1") != 0) {
    fprintf(stderr, "simtarget-replay: %s: recording format `%s`, this "
                    "simtarget-replay reads `simtarget-record 1`\n",
            dir, m->format[0] ? m->format : "(none)");
    return -1;
  }
  long page = sysconf(_SC_PAGESIZE);
  if (m->page_size != 0 && page > 0 && m->page_size != (uint64_t)page) {
    fprintf(stderr, "simtarget-replay: %s: recorded on a host with %llu-byte "
                    "pages, this one has %ld-byte pages: device memory "
                    "blocks cannot be placed as recorded\n",
            dir, (unsigned long long)m->page_size, page);
    return -1;
  }
  if (strcmp(m->machine, "x86-64") != 0 && strcmp(m->machine, "ppc64le") != 0) {
    fprintf(stderr, "simtarget-replay: %s: recorded on a `%s` device, which "
                    "this simtarget (host %s) has no plugin for\n",
            dir, m->machine[0] ? m->machine : "(none)", HOST_MACHINE);
    return -1;
  }
  return 0;
}

int manifest_check_version(const char *dir, const struct manifest *m,
                           const char *plugin_version) {
  if (strcmp(m->version, plugin_version) == 0)
    return 0;
  fprintf(stderr, "simtarget-replay: %s: recorded by simtarget %s, this is "
                  "simtarget %s: replay it with the simtarget that recorded "
                  "it (the device process, its runtime and the memory layout "
                  "must be the same)\n",
          dir, m->version[0] ? m->version : "(none)", plugin_version);
  return -1;
}
