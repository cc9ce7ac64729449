/*
 * stale_check.c - SIMTARGET_CHECK=stale (stale_check.h): each checked
 * entry's record of both sides' bytes at its last sync, the comparisons at
 * releases, copies back, launches and exit, and the findings (stderr and
 * common/check_findings.h).
 *
 * Cost, only when the check is on: twice the mapped bytes of host memory
 * for the records, and a read of the device copy (device_peek, untraced) at
 * each creation, release, `from` that copies nothing, and at exit.
 *
 * Locking: records are read and written under their device's map lock
 * (the callers in maps.c hold it); the current construct is thread-local;
 * the failed-report warning is said once (an atomic flag).
 */
#include "stale_check.h"
#include "check_findings.h"
#include "mapping_ops.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MAKE_UNDEFINED(addr, len) VALGRIND_MAKE_MEM_UNDEFINED(addr, len)
#define MAKE_DEFINED(addr, len) VALGRIND_MAKE_MEM_DEFINED(addr, len)
#else
#define RUNNING_ON_VALGRIND 0
#define MAKE_UNDEFINED(addr, len) ((void)(addr), (void)(len))
#define MAKE_DEFINED(addr, len) ((void)(addr), (void)(len))
#endif

#define TEXT 200
/* Larger entries are not compared: their records would double the memory
 * of programs that map gigabytes (tests/programs/big_arrays.c: 3 GiB), and
 * reading a device copy backs every page of it. */
#define RECORD_MAX (256ul << 20)

/* One checked entry's record: both sides' bytes at the last sync. */
struct stale_record {
  size_t size;
  bool fed;              /* a `to` copy gave the device the host's bytes */
  char mapped_at[TEXT];  /* "`target data ...` at f.c:3:1": its creation */
  char skipped[TEXT];    /* the last construct whose `from` copied nothing */
  char skipped_where[TEXT]; /* its location alone, and the creation's */
  char mapped_where[TEXT];
  char kernel[TEXT];     /* where the last kernel launched with it mapped
                          * was (its `target` construct) */
  /* `target` regions launched with it mapped whose end has not run: at the
   * program's end such an entry belongs to a region another thread is still
   * running (the program exits under it), no `exit data` is missing. */
  uint32_t regions_running;
  unsigned char *host, *dev;
  unsigned char bytes[]; /* host, then dev */
};

/* snprintf for texts that may be cut short (a long file name): cut. */
__attribute__((format(printf, 3, 4))) static void text(char *buf, size_t len,
                                                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
}

static __thread const ident_t *current_loc;
static __thread const char *current_what;

void stale_check_construct(const ident_t *loc, const char *what) {
  current_loc = loc;
  current_what = what;
}

/* "file:line:col" of the current construct, for the findings' fields. */
static const char *construct_where(char *buf, size_t len) {
  struct source_location l;
  if (report_location_parts(current_loc, &l) && l.file[0] &&
      strcmp(l.file, "unknown"))
    text(buf, len, "%s:%d:%d", l.file, l.line, l.col);
  else
    text(buf, len, "unknown location");
  return buf;
}

/* "`target exit data` at f.c:9:1 (in main)", for the messages. */
static void construct_text(char *buf, size_t len) {
  char where[TEXT];
  text(buf, len, "`%s` at %s", current_what ? current_what : "construct",
           report_location(current_loc, where, sizeof where));
}

static struct stale_record *record_of(const struct mapping_entry *e) {
  return e->check;
}

static bool checked(const struct mapping_entry *e) {
  return e->check && e->tgt_begin != e->hst_begin; /* not host memory */
}

/* ---------------------------------------------------------- comparing */

static bool in_shadow(const struct mapping_entry *e, uintptr_t addr) {
  for (const struct shadow_ptr *s = e->shadows; s; s = s->next)
    if (addr >= s->hst_ptr_addr && addr < s->hst_ptr_addr + sizeof(void *))
      return true;
  return false;
}

struct diff {
  size_t count, first, last; /* entry offsets */
};

/* The bytes at entry offsets [off, off+len) where a differs from b and,
 * when c is given, c differs from d too; attached pointers (the device
 * holds device addresses there) excepted. Each array starts at offset 0. */
static struct diff compare(const struct mapping_entry *e, size_t off,
                           size_t len, const unsigned char *a,
                           const unsigned char *b, const unsigned char *c,
                           const unsigned char *d) {
  struct diff r = {0, 0, 0};
  const size_t chunk = 64;
  for (size_t i = off; i < off + len;) {
    size_t n = off + len - i < chunk ? off + len - i : chunk;
    if (!memcmp(a + i, b + i, n)) {
      i += n;
      continue;
    }
    for (size_t k = i; k < i + n; k++) {
      if (a[k] == b[k] || (c && c[k] == d[k]) ||
          in_shadow(e, e->hst_begin + k))
        continue;
      if (!r.count++)
        r.first = k;
      r.last = k;
    }
    i += n;
  }
  return r;
}

/* Under memcheck: the host bytes at entry offsets [off, off+len) where a
 * differs from b become undefined (their values are not the ones the
 * program should see), so memcheck reports their first real use. Returns
 * how many bytes it marked. */
static size_t mark_undefined(const struct mapping_entry *e, size_t off,
                             size_t len, const unsigned char *a,
                             const unsigned char *b) {
  size_t marked = 0;
  if (!RUNNING_ON_VALGRIND)
    return 0;
  for (size_t k = off; k < off + len;) {
    if (a[k] == b[k] || in_shadow(e, e->hst_begin + k)) {
      k++;
      continue;
    }
    size_t run = k;
    while (run < off + len && a[run] != b[run])
      run++;
    MAKE_UNDEFINED((void *)(e->hst_begin + k), run - k);
    marked += run - k;
    k = run;
  }
  return marked;
}

/* Under memcheck: says which variable the host bytes just marked
 * undefined belong to and why (`why` names the rule a use of them breaks),
 * as a note in SIMTARGET_CHECK_REPORT (check "host-undefined"), from which
 * simtarget-check names the variable of memcheck's report at the use:
 * memcheck says where the value was made undefined (this construct), not
 * whose bytes they are. */
static void note_undefined(const struct mapping_entry *e, const char *why) {
  if (!RUNNING_ON_VALGRIND)
    return;
  char where[TEXT], what[TEXT];
  construct_text(what, sizeof what);
  struct check_finding f = {"host-undefined", why, e->name[0] ? e->name : "unknown",
                            construct_where(where, sizeof where), NULL, what, NULL, NULL};
  (void)check_finding_write(&f); /* a missing note only leaves a finding unnamed */
}

/* Under memcheck the check's own copies count as defined: the bytes it
 * compares may be ones it marked undefined itself, or bytes the program
 * never initialised (a `from` array), and its comparisons are no use of
 * them by the program. */
static void own_bytes(void *p, size_t len) {
  if (RUNNING_ON_VALGRIND)
    MAKE_DEFINED(p, len);
}

/* The host bytes of e, to compare: the host's own, or under memcheck a
 * defined copy (*owned, freed by the caller). */
static const unsigned char *host_view(const struct mapping_entry *e,
                                      unsigned char **owned) {
  size_t size = e->hst_end - e->hst_begin;
  *owned = NULL;
  if (!RUNNING_ON_VALGRIND)
    return (const unsigned char *)e->hst_begin;
  *owned = malloc(size ? size : 1);
  if (!*owned)
    return NULL;
  memcpy(*owned, (void *)e->hst_begin, size);
  own_bytes(*owned, size);
  return *owned;
}

/* The device copy of e into a new buffer, or NULL (said in debug output). */
static unsigned char *peek_entry(struct device *dev,
                                 const struct mapping_entry *e) {
  size_t size = e->hst_end - e->hst_begin;
  unsigned char *buf = malloc(size ? size : 1);
  if (buf && device_peek(dev, buf, (void *)e->tgt_begin, (int64_t)size) == 0) {
    own_bytes(buf, size);
    return buf;
  }
  report_debug("stale check: cannot read the device copy of %s",
               e->name[0] ? e->name : "unknown");
  free(buf);
  return NULL;
}

/* ----------------------------------------------------------- findings */

static void finding(const char *rule, const struct mapping_entry *e,
                    const char *construct, const char *message,
                    const char *gpu, const char *fix) {
  const struct stale_record *r = record_of(e);
  fprintf(stderr, "omptarget check: stale data (%s): %s. A GPU: %s. Fix: %s.\n",
          rule, message, gpu, fix);
  struct check_finding f = {"stale", rule, e->name[0] ? e->name : "unknown",
                            construct, r && r->kernel[0] ? r->kernel : NULL,
                            message, gpu, fix};
  static int said_failed;
  if (check_finding_write(&f) < 0 &&
      !__atomic_exchange_n(&said_failed, 1, __ATOMIC_RELAXED))
    fprintf(stderr, "omptarget warning: cannot append to %s=%s: %m; the "
                    "findings are on stderr only\n",
            CHECK_REPORT_ENV, getenv(CHECK_REPORT_ENV));
}

/* "bytes 4 to 3997 of its 4000 (host 0x...; 1740 bytes differ)" */
static void describe(const struct mapping_entry *e, const struct diff *d,
                     char *buf, size_t len) {
  text(buf, len,
       "bytes %zu to %zu of its %zu (host 0x%" PRIxPTR "..0x%" PRIxPTR
       "; %zu %s)",
       d->first, d->last, (size_t)(e->hst_end - e->hst_begin),
       e->hst_begin + d->first, e->hst_begin + d->last + 1, d->count,
       d->count == 1 ? "byte differs" : "bytes differ");
}

static void by_kernel(const struct stale_record *r, char *buf, size_t len) {
  if (r->kernel[0])
    text(buf, len, " (the last kernel with it mapped: `target` at %s)",
         r->kernel);
  else
    text(buf, len, " (no kernel had it mapped: a memory routine wrote it)");
}

static void skipped_note(const struct stale_record *r, char *buf,
                         size_t len) {
  if (r->skipped[0])
    text(buf, len, "; the `from` of %s copied nothing back, as the "
                       "reference count stayed above zero",
             r->skipped);
  else
    buf[0] = '\0';
}

/* ------------------------------------------------------------ records */

void stale_entry_created(struct device *dev, struct mapping_entry *e) {
  size_t size = e->hst_end - e->hst_begin;
  if (e->tgt_begin == e->hst_begin)
    return; /* the host's own memory (unified_shared_memory) */
  if (size > RECORD_MAX) {
    report_debug("stale check: %s is %zu bytes, over %lu: not checked",
                 e->name, size, RECORD_MAX);
    return;
  }
  struct stale_record *r = malloc(sizeof *r + 2 * size);
  if (!r) {
    report_debug("stale check: no memory to record %s: not checked",
                 e->name);
    return;
  }
  memset(r, 0, sizeof *r);
  r->size = size;
  r->host = r->bytes;
  r->dev = r->bytes + size;
  memcpy(r->host, (void *)e->hst_begin, size);
  if (device_peek(dev, r->dev, (void *)e->tgt_begin, (int64_t)size) != 0) {
    free(r);
    return;
  }
  own_bytes(r->bytes, 2 * size);
  construct_text(r->mapped_at, sizeof r->mapped_at);
  construct_where(r->mapped_where, sizeof r->mapped_where);
  free(e->check);
  e->check = r;
}

void stale_synced(struct mapping_entry *e, uintptr_t hst, int64_t size,
                  bool to_device) {
  struct stale_record *r = record_of(e);
  if (!r || size <= 0)
    return;
  size_t off = hst - e->hst_begin;
  memcpy(r->host + off, (void *)hst, (size_t)size);
  memcpy(r->dev + off, (void *)hst, (size_t)size);
  own_bytes(r->host + off, (size_t)size);
  own_bytes(r->dev + off, (size_t)size);
  if (to_device)
    r->fed = true;
  else if (hst == e->hst_begin && (size_t)size == r->size)
    r->skipped[0] = '\0'; /* all of it came back */
}

void stale_device_written(struct mapping_entry *e, uintptr_t hst,
                          const void *bytes, size_t len) {
  struct stale_record *r = record_of(e);
  if (!r || hst < e->hst_begin || hst + len > e->hst_end)
    return;
  memcpy(r->dev + (hst - e->hst_begin), bytes, len);
}

void stale_forget(struct mapping_entry *e) {
  free(e->check);
  e->check = NULL;
}

void stale_from_skipped(struct device *dev, struct mapping_entry *e,
                        uintptr_t hst, int64_t size) {
  struct stale_record *r = record_of(e);
  if (!checked(e) || size <= 0)
    return;
  construct_text(r->skipped, sizeof r->skipped);
  construct_where(r->skipped_where, sizeof r->skipped_where);
  if (!RUNNING_ON_VALGRIND)
    return;
  unsigned char *now = peek_entry(dev, e);
  if (!now)
    return;
  /* The host does not get what the device has now until a later copy. */
  size_t off = hst - e->hst_begin;
  unsigned char *owned;
  const unsigned char *host = host_view(e, &owned);
  if (host && mark_undefined(e, off, (size_t)size, now, host) > 0)
    note_undefined(e, "from-skipped-read");
  free(owned);
  free(now);
}

void stale_before_copy_back(struct device *dev, struct mapping_entry *e,
                            uintptr_t hst, int64_t size) {
  struct stale_record *r = record_of(e);
  if (!checked(e) || !r->skipped[0] || size <= 0)
    return;
  size_t off = hst - e->hst_begin;
  unsigned char *owned;
  const unsigned char *host = host_view(e, &owned);
  unsigned char *now = NULL;
  if (!host || !memcmp(host + off, r->host + off, (size_t)size) ||
      !(now = peek_entry(dev, e))) {
    free(owned); /* unchanged since the last sync, or unreadable */
    return;
  }
  struct diff d = compare(e, off, (size_t)size, host, r->host, now, r->dev);
  if (d.count) {
    char what[TEXT], bytes[TEXT], kernel[TEXT], msg[1024], where[TEXT];
    construct_text(what, sizeof what);
    describe(e, &d, bytes, sizeof bytes);
    by_kernel(r, kernel, sizeof kernel);
    text(msg, sizeof msg,
             "%s: the host changed %s of %s after the `from` of %s copied "
             "nothing back (the reference count stayed above zero), while "
             "the device had changed them too%s: the host worked on stale "
             "values, and this copy back overwrites its changes",
             what, bytes, e->name[0] ? e->name : "unknown", r->skipped,
             kernel);
    finding("from-skipped", e, construct_where(where, sizeof where), msg,
            "the same: an inner `from` copies nothing while an enclosing "
            "construct keeps the data mapped",
            "read device results only after the construct that maps them "
            "ends, or add `target update from(...)` before the host uses "
            "them");
  }
  free(now);
  free(owned);
}

void stale_released(struct device *dev, struct mapping_entry *e) {
  struct stale_record *r = record_of(e);
  if (!checked(e))
    return;
  unsigned char *now = peek_entry(dev, e);
  if (!now)
    return;
  struct diff d = compare(e, 0, r->size, now, r->dev, NULL, NULL);
  if (d.count) {
    char what[TEXT], bytes[TEXT], kernel[TEXT], skip[2 * TEXT], msg[1400];
    char where[TEXT];
    construct_text(what, sizeof what);
    describe(e, &d, bytes, sizeof bytes);
    by_kernel(r, kernel, sizeof kernel);
    skipped_note(r, skip, sizeof skip);
    text(msg, sizeof msg,
             "%s released %s (mapped by %s) without copying it back: the "
             "device had changed %s%s, and those results are dropped; the "
             "host keeps its old values%s",
             what, e->name[0] ? e->name : "unknown", r->mapped_at, bytes,
             kernel, skip);
    finding("released-unread", e, construct_where(where, sizeof where), msg,
            "the same: device memory is freed without a copy back",
            "map it `from` or `tofrom` (`target exit data map(from: ...)`, "
            "not `release`), or `target update from(...)` before the "
            "release");
    unsigned char *owned;
    const unsigned char *host = host_view(e, &owned);
    if (host)
      mark_undefined(e, 0, r->size, now, host);
    free(owned);
  }
  free(now);
}

void stale_before_launch(struct device *dev, struct mapping_entry *e) {
  struct stale_record *r = record_of(e);
  (void)dev;
  if (!checked(e))
    return;
  r->regions_running++;
  construct_where(r->kernel, sizeof r->kernel);
  if (!r->fed)
    return; /* `alloc`/`from`: the device copy never mirrored the host */
  unsigned char *owned;
  const unsigned char *host = host_view(e, &owned);
  struct diff d = {0, 0, 0};
  if (host)
    d = compare(e, 0, r->size, host, r->host, NULL, NULL);
  if (!d.count) {
    free(owned);
    return;
  }
  char what[TEXT], bytes[TEXT], msg[1200], where[TEXT];
  construct_text(what, sizeof what);
  describe(e, &d, bytes, sizeof bytes);
  text(msg, sizeof msg,
           "%s launches its kernel on the device copy of %s, but the host "
           "changed %s after the last copy to the device (mapped by %s) "
           "and no `target update to` followed: the kernel reads the old "
           "values",
           what, e->name[0] ? e->name : "unknown", bytes, r->mapped_at);
  finding("stale-launch", e, construct_where(where, sizeof where), msg,
          "the same: a present object is not copied again on entry",
          "add `target update to(...)` after the host changes it, or map "
          "it `always, to`");
  memcpy(r->host, host, r->size); /* said once per change */
  own_bytes(r->host, r->size);
  free(owned);
}

void stale_copy_back_queued(const struct mapping_entry *e, uintptr_t hst,
                            int64_t size) {
  /* Until the queued copy lands (which writes, so defines, the bytes) the
   * host's own values are not the ones the program will get. */
  if (RUNNING_ON_VALGRIND && size > 0) {
    MAKE_UNDEFINED((void *)hst, (size_t)size);
    note_undefined(e, "nowait-read-early");
  }
}

/* --------------------------------------------------------------- exit */

void stale_region_ended(struct mapping_entry *e) {
  struct stale_record *r = record_of(e);
  if (checked(e) && r->regions_running > 0)
    r->regions_running--;
}

static int at_exit_one(struct mapping_entry *e, void *arg) {
  struct device *dev = arg;
  struct stale_record *r = record_of(e);
  if (!checked(e) || r->regions_running > 0)
    return 0;
  unsigned char *now = peek_entry(dev, e);
  if (!now)
    return 0;
  struct diff d = compare(e, 0, r->size, now, r->dev, NULL, NULL);
  if (d.count) {
    char bytes[TEXT], kernel[TEXT], skip[2 * TEXT], msg[1400];
    describe(e, &d, bytes, sizeof bytes);
    by_kernel(r, kernel, sizeof kernel);
    skipped_note(r, skip, sizeof skip);
    text(msg, sizeof msg,
             "%s (mapped by %s) is still mapped at the program's end, its "
             "count %s: the device had changed %s%s, and the host never got "
             "them%s",
             e->name[0] ? e->name : "unknown", r->mapped_at,
             e->dyn_refcount == 1 ? "1" : "above 1", bytes, kernel, skip);
    finding("mapped-at-exit", e,
            r->skipped[0] ? r->skipped_where : r->mapped_where,
            msg,
            "the same: nothing copies back an object the program never "
            "unmaps",
            "give every `target enter data` its `target exit data "
            "map(from: ...)` (a second `enter data` counts again), or "
            "`target update from(...)` before the host uses the results");
  }
  free(now);
  return 0;
}

void stale_check_at_exit(void) {
  static int done;
  if (!stale_check_on() || __atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
    return;
  int n = devices_count();
  for (int i = 0; i < n; i++) {
    struct device *dev = device_get(i);
    if (dev && dev->state == DEVICE_READY)
      mapping_foreach_if_free(&dev->map, at_exit_one, dev);
  }
}
