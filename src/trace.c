/*
 * trace.c - SIMTARGET_TRACE: the JSON Lines trace of every offload call
 * (trace.h; schema in tools/simtarget-maps/trace.schema.json).
 *
 * Each event is built in memory (open_memstream) and written as one line
 * with write(2) under the trace lock, so lines of different
 * threads never interleave and a program that exits on a fatal error leaves
 * every line written before it. Writing goes to the file only: the
 * program's stdout and stderr are untouched (the text trace of
 * trace_refcount excepted, which LIBOMPTARGET_INFO asks for).
 *
 * Locking: `trace_lock` guards `trace_fd`, `trace_end`, the object table
 * (`objects`,
 * `num_objects`, `cap_objects`) and `next_seq`. `current` (the calling
 * thread's construct and argument) is thread-local.
 */
#include "trace.h"
#include "array.h"
#include "lock_check.h"
#include "maps.h" /* struct map_args: the layout only, no calls upward */
#include "profile.h"
#include "report.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static int trace_fd = -1;
static off_t trace_end;   /* where the next line starts */
/* A write failed: said once, nothing more is written. Written under
 * trace_lock, read without it by trace_enabled. */
static _Atomic bool trace_failed;
static uint64_t next_seq = 1;

/* A host object the trace has met: [lo, hi). Its device copy, once an
 * entry is created for it, is [dev_lo, dev_lo + hi - lo). */
struct trace_object {
  uintptr_t lo, hi;
  uintptr_t dev_lo; /* 0: no device copy seen */
  uint32_t id;
  char cls[8]; /* stack, global, heap */
};
static struct trace_object *objects;
static size_t num_objects, cap_objects;

static __thread struct {
  uint64_t seq; /* 0: no construct (a completion on another thread) */
  int32_t arg, component;
} current = {0, -1, -1};

static void trace_open(void) {
  const char *path = settings_get()->trace;
  if (path)
    trace_fd = settings_open_output("SIMTARGET_TRACE", path, "trace");
}

bool trace_enabled(void) {
  pthread_once(&trace_once, trace_open);
  return trace_fd >= 0 && !trace_failed;
}

/* ---------------------------------------------------------- JSON output */

static void put_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

/* An event under construction: the caller fills the body between
 * event_begin and event_end. */
struct event {
  FILE *f;
  char *buf;
  size_t len;
};

static bool event_begin(struct event *ev, const char *kind) {
  if (!trace_enabled())
    return false;
  ev->buf = NULL;
  ev->f = open_memstream(&ev->buf, &ev->len);
  if (!ev->f)
    return false;
  fprintf(ev->f, "{\"v\":%d,\"ev\":", TRACE_SCHEMA_VERSION);
  put_string(ev->f, kind);
  fprintf(ev->f, ",\"seq\":%" PRIu64, current.seq);
  return true;
}

/* Writes one whole line; a failed write (disk full, /dev/full, a file
 * size limit) is said once, naming the file, the part of the line written
 * is cut off again, so the file holds whole lines only, and the trace ends
 * there. Caller holds trace_lock. */
static void write_line_locked(const char *line, size_t len) {
  LOCK_ASSERT_HELD(&trace_lock);
  size_t done = 0;
  while (done < len && !trace_failed) {
    ssize_t n = write(trace_fd, line + done, len - done);
    if (n > 0) {
      done += (size_t)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      int err = n < 0 ? errno : ENOSPC;
      trace_failed = true;
      if (ftruncate(trace_fd, trace_end) == 0)
        lseek(trace_fd, trace_end, SEEK_SET);
      char where[96];
      snprintf(where, sizeof where, "no more of the trace is written (it "
               "ends before the line of seq %" PRIu64 ")", current.seq);
      settings_warn_write_failed("SIMTARGET_TRACE", settings_get()->trace,
                                 err, where);
    }
  }
  if (!trace_failed)
    trace_end += (off_t)len;
}

static void event_end(struct event *ev) {
  fputs("}\n", ev->f);
  fclose(ev->f);
  pthread_mutex_lock(&trace_lock);
  write_line_locked(ev->buf, ev->len);
  pthread_mutex_unlock(&trace_lock);
  free(ev->buf);
}

/* Arguments of the current construct, once set: events name them. */
static void put_current_arg(FILE *f) {
  if (current.arg < 0)
    return;
  fprintf(f, ",\"arg\":%d", current.arg);
  if (current.component >= 0)
    fprintf(f, ",\"component\":%d", current.component);
}

/* ------------------------------------------------ symbolic addresses */

static void classify(uintptr_t addr, char *cls, size_t len) {
  pthread_attr_t attr;
  void *stack = NULL;
  size_t stack_size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &stack, &stack_size);
    pthread_attr_destroy(&attr);
  }
  Dl_info info;
  if (addr >= (uintptr_t)stack && addr < (uintptr_t)stack + stack_size)
    snprintf(cls, len, "stack");
  else if (dladdr((void *)addr, &info) && info.dli_fname)
    snprintf(cls, len, "global");
  else
    snprintf(cls, len, "heap");
}

static struct trace_object *object_at(uintptr_t addr) {
  LOCK_ASSERT_HELD(&trace_lock);
  for (size_t i = num_objects; i-- > 0;)
    if (addr >= objects[i].lo && addr < objects[i].hi)
      return &objects[i];
  return NULL;
}

static struct trace_object *object_at_device(uintptr_t addr) {
  LOCK_ASSERT_HELD(&trace_lock);
  for (size_t i = num_objects; i-- > 0;) {
    struct trace_object *o = &objects[i];
    if (o->dev_lo && addr >= o->dev_lo && addr < o->dev_lo + (o->hi - o->lo))
      return o;
  }
  return NULL;
}

/* The object holding host [addr, addr+size), created (or grown) when the
 * trace meets it first. NULL when out of memory. */
static struct trace_object *object_for(uintptr_t addr, int64_t size) {
  LOCK_ASSERT_HELD(&trace_lock);
  uintptr_t end = addr + (uintptr_t)(size > 0 ? size : 1);
  struct trace_object *o = object_at(addr);
  if (o) {
    if (end > o->hi)
      o->hi = end;
    return o;
  }
  if (ARRAY_RESERVE(objects, cap_objects, num_objects + 1) != 0)
    return NULL;
  o = &objects[num_objects];
  memset(o, 0, sizeof *o);
  o->lo = addr;
  o->hi = end;
  o->id = (uint32_t)++num_objects;
  classify(addr, o->cls, sizeof o->cls);
  return o;
}

/* {"addr":"0x..","obj":n,"off":k,"class":c}: `near` is an object to express
 * an address outside every object by (a section's base before it). */
static void put_ref_in(FILE *f, uintptr_t addr, struct trace_object *o,
                       bool device) {
  fprintf(f, "{\"addr\":\"0x%" PRIxPTR "\"", addr);
  if (addr == 0)
    fputs(",\"class\":\"null\"", f);
  else if (o)
    fprintf(f, ",\"obj\":%u,\"off\":%" PRIdPTR ",\"class\":\"%s\"", o->id,
            (intptr_t)(addr - (device ? o->dev_lo : o->lo)),
            device ? "device" : o->cls);
  else
    fputs(",\"class\":\"unknown\"", f);
  fputc('}', f);
}

static void put_host_ref(FILE *f, uintptr_t addr, int64_t size, bool create) {
  pthread_mutex_lock(&trace_lock);
  struct trace_object *o = NULL;
  if (addr)
    o = create ? object_for(addr, size) : object_at(addr);
  put_ref_in(f, addr, o, false);
  pthread_mutex_unlock(&trace_lock);
}

static void put_device_ref(FILE *f, uintptr_t addr) {
  pthread_mutex_lock(&trace_lock);
  put_ref_in(f, addr, addr ? object_at_device(addr) : NULL, true);
  pthread_mutex_unlock(&trace_lock);
}

/* A base address: inside an object, or relative to its section's object. */
static void put_base_ref(FILE *f, uintptr_t base, uintptr_t begin) {
  pthread_mutex_lock(&trace_lock);
  struct trace_object *o = base ? object_at(base) : NULL;
  /* a section's base just before its begin (a for a[5:10]) is told
   * relative to the section's object; any other base is its own object,
   * also one of another class that only lies near (a global pointer's
   * storage before a heap block: how near depends on ASLR) */
  if (!o && base && base <= begin && begin - base < ((uintptr_t)1 << 20)) {
    o = object_at(begin);
    char cls[sizeof o->cls];
    if (o && (classify(base, cls, sizeof cls), strcmp(cls, o->cls) != 0))
      o = object_for(base, 1);
  } else if (!o && base) {
    o = object_for(base, 1);
  }
  put_ref_in(f, base, o, false);
  pthread_mutex_unlock(&trace_lock);
}

/* ------------------------------------------------------------ map types */

static const struct {
  int64_t bit;
  const char *name;
} map_bits[] = {
    {OMP_TGT_MAPTYPE_TO, "to"},
    {OMP_TGT_MAPTYPE_FROM, "from"},
    {OMP_TGT_MAPTYPE_ALWAYS, "always"},
    {OMP_TGT_MAPTYPE_DELETE, "delete"},
    {OMP_TGT_MAPTYPE_PTR_AND_OBJ, "ptr_and_obj"},
    {OMP_TGT_MAPTYPE_TARGET_PARAM, "target_param"},
    {OMP_TGT_MAPTYPE_RETURN_PARAM, "return_param"},
    {OMP_TGT_MAPTYPE_PRIVATE, "private"},
    {OMP_TGT_MAPTYPE_LITERAL, "literal"},
    {OMP_TGT_MAPTYPE_IMPLICIT, "implicit"},
    {OMP_TGT_MAPTYPE_CLOSE, "close"},
    {OMP_TGT_MAPTYPE_PRESENT, "present"},
    {OMP_TGT_MAPTYPE_OMPX_HOLD, "ompx_hold"},
    {OMP_TGT_MAPTYPE_ATTACH, "attach"},
    {OMP_TGT_MAPTYPE_FB_NULLIFY, "fb_nullify"},
    {OMP_TGT_MAPTYPE_NON_CONTIG, "non_contig"},
};

const char *map_type_bit_name(size_t i, int64_t *bit) {
  if (i >= sizeof map_bits / sizeof map_bits[0])
    return NULL;
  *bit = map_bits[i].bit;
  return map_bits[i].name;
}

static void put_type(FILE *f, int64_t type) {
  fprintf(f, ",\"type\":\"0x%" PRIx64 "\",\"bits\":[", (uint64_t)type);
  bool first = true;
  for (size_t i = 0; i < sizeof map_bits / sizeof map_bits[0]; i++)
    if (type & map_bits[i].bit) {
      fprintf(f, "%s\"%s\"", first ? "" : ",", map_bits[i].name);
      first = false;
    }
  fputc(']', f);
  uint64_t member = (uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT;
  if (member)
    fprintf(f, ",\"member_of\":%" PRIu64, member - 1); /* 0-based parent */
  int64_t unknown = type & ~OMP_TGT_MAPTYPE_KNOWN_BITS;
  if (unknown)
    fprintf(f, ",\"unknown_bits\":\"0x%" PRIx64 "\"", (uint64_t)unknown);
}

/* Clang's map name ";expr;file;line;col;;": expression, variable, place. */
static void put_name(FILE *f, const void *raw) {
  if (!raw)
    return;
  const char *s = raw;
  char expr[256] = "", file[256] = "";
  int line = 0, col = 0;
  if (s[0] != ';') {
    snprintf(expr, sizeof expr, "%s", s);
  } else {
    const char *e = strchr(s + 1, ';');
    snprintf(expr, sizeof expr, "%.*s", e ? (int)(e - s - 1) : 255, s + 1);
    const char *fe = e ? strchr(e + 1, ';') : NULL;
    if (fe) {
      snprintf(file, sizeof file, "%.*s", (int)(fe - e - 1), e + 1);
      sscanf(fe + 1, "%d;%d", &line, &col);
    }
  }
  size_t var_len = strcspn(expr, "[.-(");
  fprintf(f, ",\"name\":\"%.*s\",\"expr\":", (int)var_len, expr);
  put_string(f, expr);
  if (file[0]) {
    fputs(",\"decl\":{\"file\":", f);
    put_string(f, file);
    fprintf(f, ",\"line\":%d,\"col\":%d}", line, col);
  }
}

static void put_location(FILE *f, const ident_t *loc) {
  if (!loc || !loc->psource || loc->psource[0] != ';') {
    fputs(",\"loc\":null", f);
    return;
  }
  struct source_location l;
  report_location_parts(loc, &l);
  fputs(",\"loc\":{\"file\":", f);
  put_string(f, l.file);
  fputs(",\"func\":", f);
  put_string(f, l.func);
  fprintf(f, ",\"line\":%d,\"col\":%d}", l.line, l.col);
}

/* One argument (or mapper component): everything the compiler said. */
static void put_arg(FILE *f, int32_t i, void *base, void *begin, int64_t size,
                    int64_t type, const void *name, bool has_mapper) {
  fprintf(f, "{\"index\":%d", i);
  put_type(f, type);
  put_name(f, name);
  fprintf(f, ",\"size\":%" PRId64, size);
  if (type & OMP_TGT_MAPTYPE_NON_CONTIG) {
    /* begin is the descriptor: size dimensions {offset, count, stride} */
    const struct non_contig_dim *d = begin;
    fputs(",\"non_contig\":[", f);
    for (int64_t k = 0; d && k < size && k < 64; k++)
      fprintf(f, "%s{\"offset\":%" PRId64 ",\"count\":%" PRId64
                 ",\"stride\":%" PRId64 "}",
              k ? "," : "", d[k].offset, d[k].count, d[k].stride);
    fputc(']', f);
    fputs(",\"base\":", f);
    put_host_ref(f, (uintptr_t)base, 1, true);
    fputc('}', f);
    return;
  }
  bool mapped = !(type & (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE)) ||
                (type & OMP_TGT_MAPTYPE_PRIVATE);
  fputs(",\"begin\":", f);
  if (type & OMP_TGT_MAPTYPE_LITERAL && !(type & OMP_TGT_MAPTYPE_PTR_AND_OBJ))
    fprintf(f, "{\"addr\":\"0x%" PRIxPTR "\",\"class\":\"value\"}",
            (uintptr_t)begin);
  else
    put_host_ref(f, (uintptr_t)begin, size, mapped);
  fputs(",\"base\":", f);
  if (type & OMP_TGT_MAPTYPE_LITERAL && !(type & OMP_TGT_MAPTYPE_PTR_AND_OBJ))
    fprintf(f, "{\"addr\":\"0x%" PRIxPTR "\",\"class\":\"value\"}",
            (uintptr_t)base);
  else
    put_base_ref(f, (uintptr_t)base, (uintptr_t)begin);
  if ((type & (OMP_TGT_MAPTYPE_PTR_AND_OBJ | OMP_TGT_MAPTYPE_ATTACH)) &&
      base && !(type & OMP_TGT_MAPTYPE_LITERAL)) {
    /* the pointer the base holds: the checker pairs it with begin */
    uintptr_t held;
    memcpy(&held, base, sizeof held);
    fputs(",\"pointer_value\":", f);
    put_host_ref(f, held, 0, false);
  }
  if (has_mapper)
    fputs(",\"has_mapper\":true", f);
  fputc('}', f);
}

/* -------------------------------------------------------------- events */

/* The calling thread's construct, for names of device memory (maps.c):
 * set by every trace_call, traced or not. */
static __thread const char *current_construct;
static __thread const ident_t *current_loc;

void trace_current_construct(const char **construct, const ident_t **loc) {
  *construct = current_construct;
  *loc = current_loc;
}

void trace_call(const struct trace_call_info *info, const struct map_args *a) {
  current_construct = info->construct;
  current_loc = info->loc;
  if (PROFILE_ON()) /* LIBOMPTARGET_PROFILE: the same construct events */
    profile_construct_begin(info->construct, info->loc, info->device_id,
                            info->nowait);
  if (!trace_enabled())
    return;
  pthread_mutex_lock(&trace_lock);
  current.seq = next_seq++;
  pthread_mutex_unlock(&trace_lock);
  current.arg = current.component = -1;
  struct event ev;
  if (!event_begin(&ev, "call"))
    return;
  FILE *f = ev.f;
  fputs(",\"entry\":", f);
  put_string(f, info->entry);
  fputs(",\"construct\":", f);
  put_string(f, info->construct);
  put_location(f, info->loc);
  fprintf(f, ",\"device\":%" PRId64 ",\"nowait\":%s", info->device_id,
          info->nowait ? "true" : "false");
  if (info->is_region) {
    if (info->kargs_version)
      fprintf(f, ",\"kargs_version\":%u", info->kargs_version);
    fprintf(f, ",\"num_teams\":%d,\"thread_limit\":%d,\"tripcount\":%" PRIu64,
            info->num_teams, info->thread_limit, info->tripcount);
  }
  fprintf(f, ",\"num_args\":%d,\"args\":[", a ? a->num : 0);
  bool arrays = a && a->num > 0 && a->base && a->begin && a->sizes && a->types;
  for (int32_t i = 0; arrays && i < a->num; i++) {
    if (i)
      fputc(',', f);
    put_arg(f, i, a->base[i], a->begin[i], a->sizes[i], a->types[i],
            a->names ? a->names[i] : NULL, a->mappers && a->mappers[i]);
  }
  fputc(']', f);
  event_end(&ev);
}

void trace_mapper(int32_t arg, int32_t num, void *const *base,
                  void *const *begin, const int64_t *sizes,
                  const int64_t *types, void *const *names) {
  struct event ev;
  if (!event_begin(&ev, "mapper"))
    return;
  fprintf(ev.f, ",\"arg\":%d,\"components\":[", arg);
  for (int32_t k = 0; k < num; k++) {
    if (k)
      fputc(',', ev.f);
    put_arg(ev.f, k, base[k], begin[k], sizes[k], types[k],
            names ? names[k] : NULL, false);
  }
  fputc(']', ev.f);
  event_end(&ev);
}

void trace_set_arg(int32_t arg, int32_t component) {
  current.arg = arg;
  current.component = component;
}

void trace_result(const char *status, const char *cause) {
  if (PROFILE_ON())
    profile_construct_end(status);
  /* Without a trace nothing reads `current` (a thread-local: its address
   * costs a call in a shared library). */
  if (!trace_enabled())
    return;
  struct event ev;
  if (event_begin(&ev, "result")) {
    fputs(",\"status\":", ev.f);
    put_string(ev.f, status);
    if (cause && cause[0]) {
      fputs(",\"cause\":", ev.f);
      put_string(ev.f, cause);
    }
    event_end(&ev);
  }
  current.seq = 0;
  current.arg = current.component = -1;
}

static void put_count(FILE *f, const char *key, uint64_t n) {
  if (n == UINT64_MAX)
    fprintf(f, ",\"%s\":\"inf\"", key);
  else
    fprintf(f, ",\"%s\":%" PRIu64, key, n);
}

void trace_entry(const char *action, uintptr_t hst_begin, uintptr_t hst_end,
                 uintptr_t tgt_begin, uint64_t dyn, uint64_t hold,
                 const char *name) {
  if (!trace_enabled())
    return;
  if (!strcmp(action, "created")) {
    pthread_mutex_lock(&trace_lock);
    struct trace_object *o =
        object_for(hst_begin, (int64_t)(hst_end - hst_begin));
    /* the device copy of [hst_begin, hst_end) within the object */
    if (o)
      o->dev_lo = tgt_begin - (hst_begin - o->lo);
    pthread_mutex_unlock(&trace_lock);
  }
  struct event ev;
  if (!event_begin(&ev, "entry"))
    return;
  put_current_arg(ev.f);
  fputs(",\"action\":", ev.f);
  put_string(ev.f, action);
  fputs(",\"host\":", ev.f);
  put_host_ref(ev.f, hst_begin, (int64_t)(hst_end - hst_begin), true);
  fprintf(ev.f, ",\"size\":%" PRIuPTR ",\"device\":", hst_end - hst_begin);
  put_device_ref(ev.f, tgt_begin);
  put_count(ev.f, "dyn", dyn);
  put_count(ev.f, "hold", hold);
  fputs(",\"name\":", ev.f);
  put_string(ev.f, name);
  event_end(&ev);
}

static const char *const change_names[] = {
    [TRACE_INCREMENTED] = "incremented",
    [TRACE_DECREMENTED] = "decremented",
    [TRACE_SUPPRESSED] = "suppressed",
    [TRACE_RESET] = "reset",
    [TRACE_DEFERRED_DELETE] = "deferred_delete",
};

void trace_refcount(enum trace_change change, enum trace_count count,
                    uintptr_t hst_begin, uint64_t before, uint64_t after,
                    const char *name, enum trace_copy_note note) {
  const char *which = count == TRACE_HOLD ? "hold" : "dynamic";
  if (PROFILE_ON())
    profile_refcount(change_names[change], which, name, before, after);
  if (REPORT_INFO_ON(INFO_REFCOUNT)) {
    static const char *const note_text[] = {
        [TRACE_NOTE_NONE] = "",
        [TRACE_NOTE_TO_SKIPPED] = "; was present: `to` copies nothing",
        [TRACE_NOTE_FROM_SKIPPED] = "; not zero: `from` copies nothing back",
        [TRACE_NOTE_LAST_FROM] = "; reached zero: `from` copies back, then the entry goes",
        [TRACE_NOTE_LAST] = "; reached zero: the entry goes",
    };
    char b[24] = "INF", a[24] = "INF";
    if (before != UINT64_MAX)
      snprintf(b, sizeof b, "%" PRIu64, before);
    if (after != UINT64_MAX)
      snprintf(a, sizeof a, "%" PRIu64, after);
    const char *why = "";
    if (change == TRACE_SUPPRESSED)
      why = before == UINT64_MAX
                ? " (an infinite count: declare target or associated)"
                : " (already counted in this construct)";
    report_info(INFO_REFCOUNT,
                "%s reference count of %s (host 0x%" PRIxPTR ") %s: %s -> %s%s%s",
                which, name && name[0] ? name : "unknown", hst_begin,
                change_names[change], b, a, why, note_text[note]);
  }
  struct event ev;
  if (!event_begin(&ev, "refcount"))
    return;
  put_current_arg(ev.f);
  fprintf(ev.f, ",\"count\":\"%s\",\"change\":\"%s\",\"host\":", which,
          change_names[change]);
  put_host_ref(ev.f, hst_begin, 1, true);
  put_count(ev.f, "before", before);
  put_count(ev.f, "after", after);
  fputs(",\"name\":", ev.f);
  put_string(ev.f, name);
  event_end(&ev);
}

void trace_copy(bool to_device, bool queued, const void *hst, const void *tgt,
                int64_t size, const char *name) {
  struct event ev;
  if (!event_begin(&ev, "copy"))
    return;
  put_current_arg(ev.f);
  fprintf(ev.f, ",\"direction\":\"%s\",\"queued\":%s,\"bytes\":%" PRId64
                ",\"host\":",
          to_device ? "to_device" : "from_device", queued ? "true" : "false",
          size);
  put_host_ref(ev.f, (uintptr_t)hst, size, false);
  fputs(",\"device\":", ev.f);
  put_device_ref(ev.f, (uintptr_t)tgt);
  if (name && name[0]) {
    fputs(",\"name\":", ev.f);
    put_string(ev.f, name);
  }
  event_end(&ev);
}

void trace_attach(uintptr_t ptr_addr, uintptr_t host_value, uintptr_t value) {
  struct event ev;
  if (!event_begin(&ev, "attach"))
    return;
  put_current_arg(ev.f);
  fputs(",\"pointer\":", ev.f);
  put_host_ref(ev.f, ptr_addr, 8, false);
  fputs(",\"host_value\":", ev.f);
  put_host_ref(ev.f, host_value, 0, false);
  fputs(",\"device_value\":", ev.f);
  put_device_ref(ev.f, value);
  event_end(&ev);
}

void trace_lookup(const char *result, uintptr_t begin, int64_t size) {
  struct event ev;
  if (!event_begin(&ev, "lookup"))
    return;
  put_current_arg(ev.f);
  fputs(",\"result\":", ev.f);
  put_string(ev.f, result);
  fprintf(ev.f, ",\"size\":%" PRId64 ",\"host\":", size);
  put_host_ref(ev.f, begin, size, true);
  event_end(&ev);
}

void trace_kernel(const char *kernel, int32_t n, void *const *params,
                  const int32_t *param_arg, const struct map_args *a,
                  const struct trace_launch *launched) {
  struct event ev;
  if (!event_begin(&ev, "kernel"))
    return;
  fputs(",\"kernel\":", ev.f);
  put_string(ev.f, kernel ? kernel : "?");
  fputs(",\"exec_mode\":", ev.f);
  if (launched->exec_mode)
    put_string(ev.f, launched->exec_mode);
  else
    fputs("null", ev.f);
  fprintf(ev.f, ",\"launched\":{\"num_teams\":%d,\"thread_limit\":%d,"
                "\"tripcount\":%" PRIu64 "}",
          launched->num_teams, launched->thread_limit, launched->tripcount);
  fprintf(ev.f, ",\"params\":[");
  for (int32_t p = 0; p < n; p++) {
    int32_t i = param_arg[p];
    fprintf(ev.f, "%s{\"param\":%d,\"arg\":%d,\"value\":", p ? "," : "", p, i);
    put_device_ref(ev.f, (uintptr_t)params[p]);
    /* "device copy of argument i + offset": offset from the device copy
     * of the argument's begin */
    if (i >= 0 && i < a->num &&
        !(a->types[i] & (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE))) {
      pthread_mutex_lock(&trace_lock);
      struct trace_object *o = object_at((uintptr_t)a->begin[i]);
      if (o && o->dev_lo && params[p]) {
        uintptr_t dev_begin = o->dev_lo + ((uintptr_t)a->begin[i] - o->lo);
        fprintf(ev.f, ",\"arg_offset\":%" PRIdPTR,
                (intptr_t)((uintptr_t)params[p] - dev_begin));
      }
      pthread_mutex_unlock(&trace_lock);
    }
    fputc('}', ev.f);
  }
  fputc(']', ev.f);
  event_end(&ev);
}

void trace_note(const char *kind, const char *text) {
  struct event ev;
  if (!event_begin(&ev, "note"))
    return;
  fputs(",\"kind\":", ev.f);
  put_string(ev.f, kind);
  fputs(",\"text\":", ev.f);
  put_string(ev.f, text);
  event_end(&ev);
}
