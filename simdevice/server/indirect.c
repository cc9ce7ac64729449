/*
 * indirect.c - `declare target indirect` in the device process (seed 003).
 *
 * The host sends the host -> device function table (SIMDEV_CMD_FPTR_MAP,
 * whole table each time). It is used in two ways:
 *  - the device runtime's __kmpc_target_translate_fptr searches it, for
 *    images that translate before an indirect call;
 *  - x86-64 images call a host function pointer directly. The host address
 *    is not executable here, so the call faults with an instruction fetch at
 *    that address; faults.c then asks indirect_lookup() and, for a row,
 *    continues in the device function (arguments are still in registers and
 *    the return address is on the stack).
 *
 * That only works if a host function address can never be executable code
 * in this process. What we rely on (checked against /proc/<pid>/maps):
 *  - the server is linked non-PIE at 0x40000000 (Makefile), away from host
 *    executables (non-PIE at 0x400000, PIE at 0x55..-0x56.. with ASLR and at
 *    0x555555554000 without);
 *  - device libraries and images are mapped top-down from 0x7ffff7fff000
 *    (ASLR is off here); at start-up the server reserves, inaccessible,
 *    every executable range of the host process that is still free here,
 *    so nothing loaded later can land on host code;
 *  - a host range that already overlaps device code (possible only when the
 *    host itself runs without ASLR, e.g. under gdb) is named on stderr,
 *    unless it is the same file at the same offset (then the code there is
 *    the same); a table row whose host address is device code is refused.
 *
 * Locking: only the main server thread receives and installs tables
 * (FPTR_MAP), possibly while queue-slot threads run kernels. The fault
 * handler, on any thread, reads the installed table through a snapshot
 * (snapshot.c): it never blocks, and a replaced table is freed only once no
 * reader can still use it. The device runtime gets its own copy
 * (simdev_rt_set_fptr_map). `staging` is the main thread's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server.h"

struct fptr_table {
  uint64_t count;
  struct simdev_fptr_row rows[];
};

static struct snapshot installed; /* of struct fptr_table */
static struct fptr_table *staging; /* being received in chunks */

/* The runtime's private API; absent when SIMDEVICE_RUNTIME is a plain libomp
 * (tests only): then only the fault path translates. */
typedef int (*set_map_fn)(const void *rows, uint64_t count);

/* Installs `t` (taken; NULL clears) for the runtime and the fault handler.
 * 0, or -1 with the reason in `msg` and the old table still in force. */
static int install(struct fptr_table *t, char *msg, size_t len) {
  set_map_fn set =
      (set_map_fn)dlvsym(RTLD_DEFAULT, "simdev_rt_set_fptr_map", "SIMDEVICE_1");
  if (set != NULL && set(t ? t->rows : NULL, t ? t->count : 0) != 0) {
    snprintf(msg, len,
             "the device runtime has no memory for a function table of "
             "%" PRIu64 " rows",
             t ? t->count : 0);
    free(t);
    return -1;
  }
  free(snapshot_replace(&installed, t));
  return 0;
}

/* Rows must be sorted, unique, point at device code, and their host address
 * must not be device code (the call would run that code, not fault). */
static int validate(const struct fptr_table *t, char *msg, size_t len) {
  for (uint64_t i = 0; i < t->count; i++) {
    const struct simdev_fptr_row *r = &t->rows[i];
    Dl_info info;
    if (i > 0 && r->host <= t->rows[i - 1].host) {
      snprintf(msg, len,
               "function table row %" PRIu64 " (host 0x%" PRIx64 ") is not "
               "sorted after host 0x%" PRIx64,
               i, r->host, t->rows[i - 1].host);
      return -1;
    }
    if (r->host == 0 || r->device == 0 || dladdr((void *)r->device, &info) == 0) {
      snprintf(msg, len,
               "function table row %" PRIu64 ": device address 0x%" PRIx64
               " of host function 0x%" PRIx64 " is not in any loaded image",
               i, r->device, r->host);
      return -1;
    }
    if (dladdr((void *)r->host, &info) != 0) {
      snprintf(msg, len,
               "host function 0x%" PRIx64 " is also an address of device code"
               " (%.200s) in the device process, so a call through it cannot "
               "be redirected to its device version 0x%" PRIx64
               " (is the host running without address randomisation?)",
               r->host, info.dli_fname ? info.dli_fname : "?", r->device);
      return -1;
    }
  }
  return 0;
}

int indirect_store(const struct simdev_fptr_row *rows, uint64_t count,
                   uint64_t at, uint64_t total, char *msg, size_t len) {
  if (total == 0) {
    free(staging);
    staging = NULL;
    return install(NULL, msg, len);
  }
  if (at == 0) {
    free(staging);
    staging = NULL;
    if (total > (SIZE_MAX - sizeof *staging) / sizeof staging->rows[0] ||
        (staging = malloc(sizeof *staging + total * sizeof rows[0])) == NULL) {
      snprintf(msg, len, "no memory for a function table of %" PRIu64 " rows",
               total);
      return -1;
    }
    staging->count = total;
  }
  if (staging == NULL || staging->count != total || at > total ||
      count > total - at) {
    snprintf(msg, len,
             "function table chunk of %" PRIu64 " rows at row %" PRIu64
             " does not fit a table of %" PRIu64 " rows",
             count, at, total);
    return -1;
  }
  memcpy(&staging->rows[at], rows, count * sizeof rows[0]);
  if (at + count < total)
    return 0;
  struct fptr_table *t = staging;
  staging = NULL;
  if (validate(t, msg, len) != 0) {
    free(t);
    return -1;
  }
  return install(t, msg, len);
}

uint64_t indirect_lookup(uint64_t host) {
  unsigned ticket;
  const struct fptr_table *t = snapshot_enter(&installed, &ticket);
  uint64_t device = 0, lo = 0, hi = t ? t->count : 0;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (t->rows[mid].host == host) {
      device = t->rows[mid].device;
      break;
    }
    if (t->rows[mid].host < host)
      lo = mid + 1;
    else
      hi = mid;
  }
  snapshot_leave(&installed, ticket);
  return device;
}

/* ---- keeping host code addresses unmapped here ------------------------- */

struct map_range {
  uint64_t lo, hi, offset;
  int exec;
  char path[160];
};

/* Reads the mappings of process `pid` ("self" when 0). Returns the count
 * (0 when unreadable); *out is malloc'ed. */
static size_t read_maps(pid_t pid, struct map_range **out) {
  char path[64];
  if (pid == 0)
    snprintf(path, sizeof path, "/proc/self/maps");
  else
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  *out = NULL;
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  size_t n = 0, cap = 0;
  struct map_range *v = NULL;
  char line[512];
  while (fgets(line, sizeof line, f) != NULL) {
    struct map_range r;
    char perms[8] = "";
    int name_at = 0;
    memset(&r, 0, sizeof r);
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
               &r.lo, &r.hi, perms, &r.offset, &name_at) < 4)
      continue;
    r.exec = strchr(perms, 'x') != NULL;
    if (name_at > 0) {
      snprintf(r.path, sizeof r.path, "%s", line + name_at);
      r.path[strcspn(r.path, "\n")] = '\0';
    }
    if (n == cap) {
      size_t grown = cap ? cap * 2 : 64;
      struct map_range *w = realloc(v, grown * sizeof *w);
      if (w == NULL)
        break;
      v = w;
      cap = grown;
    }
    v[n++] = r;
  }
  fclose(f);
  *out = v;
  return n;
}

void indirect_guard_host_code(pid_t host, int device_id) {
  struct map_range *theirs, *ours = NULL;
  size_t nt = read_maps(host, &theirs), no = 0;
  size_t clashes = 0;
  uint64_t first_lo = 0, first_hi = 0;
  int read_ours = 0;
  for (size_t i = 0; i < nt; i++) {
    const struct map_range *h = &theirs[i];
    if (!h->exec || h->hi > 0x800000000000ull) /* [vsyscall] is everywhere */
      continue;
    /* Only a free range can be reserved; one that is not (EEXIST) overlaps
     * something of ours, which our own mappings then tell (read only then:
     * with address randomisation in the host, never). */
    void *p = mmap((void *)h->lo, h->hi - h->lo, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                       MAP_FIXED_NOREPLACE,
                   -1, 0);
    if (p != MAP_FAILED && p != (void *)h->lo)
      munmap(p, h->hi - h->lo); /* an old kernel placed it elsewhere */
    if (p != MAP_FAILED || errno != EEXIST)
      continue;
    if (!read_ours) {
      no = read_maps(0, &ours);
      read_ours = 1;
    }
    for (size_t j = 0; j < no; j++) {
      const struct map_range *d = &ours[j];
      if (d->hi <= h->lo || d->lo >= h->hi)
        continue;
      int same_code = d->lo == h->lo && d->offset == h->offset &&
                      d->path[0] == '/' && strcmp(d->path, h->path) == 0;
      if (d->exec && !same_code && clashes++ == 0)
        first_lo = h->lo, first_hi = h->hi;
    }
  }
  /* One line, not one per range: under Valgrind or gdb (no address
   * randomisation) there can be dozens. */
  if (clashes)
    fprintf(stderr,
            "simdevice-server: device %d: %zu host code range(s), the first "
            "0x%" PRIx64 "-0x%" PRIx64 ", overlap device code in the device "
            "process: a host function pointer into them would run device "
            "code instead of faulting (the host runs without address "
            "randomisation, e.g. under Valgrind or gdb)\n",
            device_id, clashes, first_lo, first_hi);
  free(theirs);
  free(ours);
}
