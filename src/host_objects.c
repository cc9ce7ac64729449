/*
 * host_objects.c - naming a host address that a kernel used (host_objects.h):
 * the kernel runs in the device's address space, where a host pointer means
 * nothing, so the fault report says where the address lives on the host
 * (a global symbol, a frame of the calling thread's stack, the heap) and
 * which argument of the construct carried the pointer.
 *
 * It runs on the host thread whose construct failed, after the kernel
 * faulted; the program is about to be told of a failure, so the cost (one
 * read of /proc/self/maps, one symbol table, one unwind) does not matter.
 *
 * host_objects_explain_fault puts it together for a faulted kernel: a host
 * function called from device code, a device address inside or just past a
 * mapped object, memory unmapped by an earlier construct, a host address
 * inside an argument or elsewhere in host memory (launch.c calls it).
 *
 * Thread safety: no shared state. The argument scan reads the construct's
 * host memory, which the calling thread owns for the construct's length;
 * the explanation reads the device's kernels under dev->lock and copies of
 * table entries through mapping_ops.c, which locks the table.
 */
#include "host_objects.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#include "check_findings.h"
#include "device.h"
#include "faults.h"
#include "hostsyms.h"
#include "mapping_ops.h"

/* How far past a pointer's value an access may land and still be called
 * "through that pointer" (an index into the array it points to). */
#define CARRIER_REACH ((uintptr_t)1 << 20)

/* The region of /proc/self/maps holding addr: its name ("[heap]", "[stack]",
 * a file, or "" for anonymous memory). false when no region holds it. */
static bool mapped_region(uintptr_t addr, char *name, size_t len) {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f)
    return false;
  char line[768];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &path_at) < 2 ||
        addr < lo || addr >= hi)
      continue;
    found = true;
    char *path = path_at > 0 ? line + path_at : line + strlen(line);
    path[strcspn(path, "\n")] = '\0';
    snprintf(name, len, "%s", path);
  }
  fclose(f);
  return found;
}

/* ---- the calling thread's stack: which frame holds the address ---------- */

/* Each step of libgcc's unwinder gives one frame's CFA (the top of its
 * area) and that frame's return address, which lies in the caller. So the
 * frame of step k spans [CFA of step k-1, CFA of step k), and its function
 * is the one holding the return address of step k-1. */
struct frame_search {
  uintptr_t addr;
  uintptr_t prev_cfa, prev_ra;
  uintptr_t ip; /* an address inside the function whose frame holds addr */
  bool found;
};

static _Unwind_Reason_Code frame_step(struct _Unwind_Context *ctx, void *arg) {
  struct frame_search *s = arg;
  uintptr_t cfa = (uintptr_t)_Unwind_GetCFA(ctx);
  if (s->prev_cfa && s->addr >= s->prev_cfa && s->addr < cfa) {
    s->ip = s->prev_ra;
    s->found = s->ip != 0;
    return _URC_END_OF_STACK;
  }
  s->prev_cfa = cfa;
  s->prev_ra = (uintptr_t)_Unwind_GetIP(ctx);
  return _URC_NO_REASON;
}

static bool on_own_stack(uintptr_t addr) {
  pthread_attr_t attr;
  void *lo = NULL;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return false;
  pthread_attr_getstack(&attr, &lo, &size);
  pthread_attr_destroy(&attr);
  return addr >= (uintptr_t)lo && addr < (uintptr_t)lo + size;
}

/* "in the frame of `run`" for an address of the calling thread's stack. */
static void describe_stack(uintptr_t addr, char *buf, size_t len) {
  struct frame_search s = {.addr = addr};
  _Unwind_Backtrace(frame_step, &s);
  char fn[256];
  if (s.found && host_symbol_containing((const void *)(s.ip - 1), true, fn,
                                        sizeof fn, NULL, NULL)) {
    fn[strcspn(fn, ".")] = '\0'; /* gcc's clones: f.constprop.0, f.isra.0 */
    snprintf(buf, len, "the stack frame of `%s` on the host thread that ran "
                       "the construct (a local variable)",
             fn);
  } else
    snprintf(buf, len, "the stack of the host thread that ran the construct "
                       "(a local variable)");
}

/* ---- which argument carried the pointer ---------------------------------- */

/* The argument whose host data (or literal value) holds the pointer nearest
 * below addr; false when none holds one within CARRIER_REACH. */
static bool find_carrier(uintptr_t addr, const struct map_args *a,
                         int32_t *arg, uintptr_t *offset, uintptr_t *value) {
  uintptr_t best = 0;
  bool found = false;
  for (int32_t i = 0; a && i < a->num; i++) {
    int64_t type = a->types[i];
    if (type & OMP_TGT_MAPTYPE_NON_CONTIG)
      continue;
    if (type & OMP_TGT_MAPTYPE_LITERAL) { /* the value is the pointer */
      uintptr_t v = (uintptr_t)a->base[i];
      if (v && v <= addr && addr - v < CARRIER_REACH &&
          (!found || v > best)) {
        best = v, *arg = i, *offset = SIZE_MAX, found = true;
      }
      continue;
    }
    uintptr_t b = (uintptr_t)a->begin[i];
    int64_t size = a->sizes[i];
    if (size == 0) { /* a pointer whose pointee is not mapped: its value */
      if (b && b <= addr && addr - b < CARRIER_REACH && (!found || b > best)) {
        best = b, *arg = i, *offset = SIZE_MAX - 1, found = true;
      }
      continue;
    }
    if (!b || size < (int64_t)sizeof(uintptr_t) || size > (1 << 16))
      continue; /* a large array holds data, not the pointer */
    for (uintptr_t off = (-b) & (sizeof(uintptr_t) - 1);
         off + sizeof(uintptr_t) <= (uintptr_t)size; off += sizeof(uintptr_t)) {
      uintptr_t v;
      memcpy(&v, (const void *)(b + off), sizeof v);
      if (v && v <= addr && addr - v < CARRIER_REACH &&
          (!found || v > best)) {
        best = v, *arg = i, *offset = off, found = true;
      }
    }
  }
  *value = best;
  return found;
}

bool host_object_describe(uintptr_t addr, const struct map_args *a, char *buf,
                          size_t len) {
  char region[512] = "", where[640] = "", sym[256] = "";
  uintptr_t start = 0;
  size_t size = 0;
  bool known = mapped_region(addr, region, sizeof region);
  if (on_own_stack(addr))
    describe_stack(addr, where, sizeof where);
  else if (host_symbol_containing((const void *)addr, false, sym, sizeof sym,
                                  &start, &size))
    snprintf(where, sizeof where, "the global `%s` (offset %" PRIuPTR " of "
                                  "its %zu bytes)",
             sym, addr - start, size);
  else if (!known)
    return false; /* not host memory either: a wild pointer */
  else if (!strcmp(region, "[heap]"))
    snprintf(where, sizeof where, "host heap memory (a malloc'ed block)");
  else if (!strcmp(region, "[stack]"))
    snprintf(where, sizeof where, "the stack of the program's main thread");
  else if (region[0] == '/')
    snprintf(where, sizeof where, "memory of %s", region);
  else
    snprintf(where, sizeof where, "anonymous host memory (a large malloc'ed "
                                  "block, an mmap, or another thread's "
                                  "stack)");

  int32_t arg = -1;
  uintptr_t offset = 0, value = 0;
  char carrier[640] = "";
  char name[128] = "";
  if (find_carrier(addr, a, &arg, &offset, &value)) {
    maps_var_name(a, arg, name, sizeof name);
    if (offset == SIZE_MAX - 1)
      snprintf(carrier, sizeof carrier,
               "; the pointer came from argument %d `%s`, a pointer mapped "
               "with no data: no mapping holds 0x%" PRIxPTR ", so the kernel "
               "got the host value (map what it points to, e.g. `%s[0:n]`)",
               arg, name[0] ? name : "unknown", value,
               name[0] ? name : "p");
    else if (offset == SIZE_MAX)
      snprintf(carrier, sizeof carrier,
               "; the pointer came from argument %d `%s`, passed by value "
               "(0x%" PRIxPTR ", a host address: map what it points to, or "
               "use is_device_ptr only for device memory)",
               arg, name[0] ? name : "unknown", value);
    else
      snprintf(carrier, sizeof carrier,
               "; the pointer came from argument %d `%s`: its host data holds "
               "0x%" PRIxPTR " at offset %" PRIuPTR ", copied to the device "
               "unchanged (map the pointee, e.g. map(p->data[0:n]), so the "
               "device copy points at device memory)",
               arg, name[0] ? name : "unknown", value, offset);
  }
  /* the finding names the pointer that carried the address, else the
   * global it points into */
  report_finding_rule("host-address",
                      name[0] ? name : (!strncmp(where, "the global `", 12)
                                            ? sym : NULL));
  snprintf(buf, len, "0x%" PRIxPTR " is a host address, in %s%s", addr, where,
           carrier);
  return true;
}

/* ---- a kernel fault in host terms ------------------------------------- */

/* A kernel that jumped to a host function: the device process took an
 * execute fault at an address with no row in its indirect table. Name the
 * host function (seed 003); false when `addr` is no host function. */
static bool explain_host_call(struct device *dev, const void *region,
                              uintptr_t addr) {
  char fn[256];
  if (!host_function_at((const void *)addr, fn, sizeof fn))
    return false;
  struct device_entry kernel;
  memset(&kernel, 0, sizeof kernel);
  pthread_mutex_lock(&dev->lock); /* device_lookup_entry would add a cause */
  for (size_t i = 0; i < dev->num_entries; i++)
    if (dev->entries[i].host_addr == region)
      kernel = dev->entries[i];
  pthread_mutex_unlock(&dev->lock);
  report_error_set("kernel `%s` called host function `%s` at 0x%" PRIxPTR
                   ": `%s` is not declare target indirect, so device %d has "
                   "no version of it (a host function address means nothing "
                   "in the device's address space; declare it with `#pragma "
                   "omp declare target indirect to(%s)`)",
                   kernel.name ? kernel.name : "?", fn, addr, fn, dev->id, fn);
  report_finding_rule("host-function-call", NULL);
  return true;
}

/* The argument of the construct whose host range holds host address h,
 * preferring one the compiler named (a struct's combined entry has no
 * name; its members do). */
static int32_t argument_holding(const struct map_args *a, uintptr_t h) {
  int32_t found = -1;
  for (int32_t i = 0; i < a->num; i++) {
    uintptr_t b = (uintptr_t)a->begin[i];
    uintptr_t s = a->sizes[i] > 0 ? (uintptr_t)a->sizes[i] : 1;
    char name[16];
    if ((a->types[i] & (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE)) ||
        h < b || h >= b + s)
      continue;
    maps_var_name(a, i, name, sizeof name);
    if (name[0] && strcmp(name, "unknown")) /* clang's name for none */
      return i;
    if (found < 0)
      found = i;
  }
  return found;
}

/* AddressSanitizer in the simdevice device process reported the access
 * (the plugin's words in the error: "AddressSanitizer in the device
 * process: KIND at FILE:LINE:COL: ..."): the machine copy of the finding, with the section
 * named here (common/check_findings.h; nothing without
 * SIMTARGET_CHECK_REPORT). */
static void sanitizer_finding(const char *error_text, const char *name,
                              const char *where_rule, const char *explanation) {
  static const char tag[] = "AddressSanitizer in the device process: ";
  const char *p = error_text ? strstr(error_text, tag) : NULL;
  if (p == NULL)
    return;
  p += sizeof tag - 1;
  char rule[64], kernel[256] = "";
  snprintf(rule, sizeof rule, "%.*s", (int)strcspn(p, " :"), p);
  const char *at = strstr(p, " at ");
  if (at != NULL && at < p + strcspn(p, ":"))
    snprintf(kernel, sizeof kernel, "%.*s", (int)strcspn(at + 4, " ;") - 1,
             at + 4);
  struct check_finding f = {
      .check = "asan", .rule = where_rule ? where_rule : rule,
      .variable = name,
      .kernel = kernel[0] ? kernel : NULL, .message = explanation,
      .gpu = "a GPU reads or writes whatever lies there, with nothing said",
      .fix = "keep the kernel's accesses inside the mapped section, or map "
             "the section the kernel uses"};
  if (check_finding_write(&f) < 0)
    fprintf(stderr, "omptarget: cannot write the finding to %s: %s\n",
            CHECK_REPORT_ENV, strerror(errno));
}

/* A device address the kernel faulted at, named by the mapped object it
 * hit or ran past (simdevice puts a guard page after each allocation), or
 * that it lies just before (AddressSanitizer in the device process reports
 * that), and the construct's argument that mapped it. */
static bool explain_device_fault(struct device *dev,
                                 const struct map_args *a, uintptr_t addr,
                                 const char *error_text) {
  const long page = sysconf(_SC_PAGESIZE); /* 64 KiB on most POWER machines */
  const uintptr_t guard = page > 0 ? (uintptr_t)page : 4096;
  struct mapping_range m;
  bool beyond; /* addr is after the entry, not inside it */
  bool before = false; /* addr is before the entry (ASan on the device) */
  if (!mapping_entry_near_device(&dev->map, addr, guard, &m, &beyond)) {
    if (!mapping_entry_after_device(&dev->map, addr, guard, &m))
      return false;
    before = true;
  }
  const struct mapping_range *e = &m;
  char name[128] = "";
  int32_t i = argument_holding(a, e->hst_begin);
  if (i >= 0)
    maps_var_name(a, i, name, sizeof name);
  if (!name[0])
    snprintf(name, sizeof name, "%s", e->name[0] ? e->name : "unknown");
  char arg[48] = "";
  if (i >= 0)
    snprintf(arg, sizeof arg, "argument %d, ", i);
  uintptr_t size = e->hst_end - e->hst_begin;
  /* bytes before the start, or past the end (0: the first byte after) */
  uintptr_t off = before   ? e->tgt_begin - addr
                  : beyond ? addr - (e->tgt_begin + size)
                           : 0;
  const char *rule = before   ? "before-start-of-mapping"
                     : beyond ? "past-end-of-mapping"
                              : "inside-mapping";
  char where[300];
  if (before || beyond)
    snprintf(where, sizeof where, "%" PRIuPTR " byte%s %s `%s`", off,
             off == 1 ? "" : "s",
             before ? "before the start of" : "past the end of", name);
  else
    snprintf(where, sizeof where, "inside `%s`", name);
  char explanation[400];
  snprintf(explanation, sizeof explanation, "device 0x%" PRIxPTR " is %s",
           addr, where);
  report_finding_rule(rule, name);
  sanitizer_finding(error_text, name, before || beyond ? rule : NULL,
                    explanation);
  report_error_set("%s (%s%" PRIuPTR " bytes mapped from host 0x%" PRIxPTR ")",
                   explanation, arg, size, e->hst_begin);
  return true;
}

/* A device pointer passed by value (is_device_ptr, firstprivate): name it
 * when addr lies shortly past its value (a kept use_device_ptr result whose
 * data was unmapped since). Returns whether one was named. */
static bool explain_by_value_pointer(const struct map_args *a,
                                     uintptr_t addr) {
  int32_t by_value = -1; /* the closest value below addr */
  for (int32_t i = 0; i < a->num; i++) {
    uintptr_t v = (uintptr_t)a->base[i];
    if ((a->types[i] & OMP_TGT_MAPTYPE_LITERAL) &&
        a->sizes[i] == (int64_t)sizeof(void *) && v && v <= addr &&
        addr - v < (1u << 30) &&
        (by_value < 0 || v > (uintptr_t)a->base[by_value]))
      by_value = i;
  }
  if (by_value < 0)
    return false;
  char name[128];
  uintptr_t v = (uintptr_t)a->base[by_value];
  maps_var_name(a, by_value, name, sizeof name);
  report_finding_rule("past-by-value-pointer", name[0] ? name : NULL);
  report_error_set("0x%" PRIxPTR " is %" PRIuPTR " byte%s past 0x%" PRIxPTR
                   ", the value of `%s` (argument %d, passed by value)",
                   addr, addr - v, addr - v == 1 ? "" : "s", v,
                   name[0] ? name : "unknown", by_value);
  return true;
}

/* An address no mapping explains: inside one of the construct's host
 * objects, elsewhere in host memory, or past a pointer's host value. */
static void explain_unmapped(const struct map_args *a, uintptr_t addr) {
  int32_t nearest = -1; /* zero-size argument with the closest begin below */
  for (int32_t i = 0; i < a->num; i++) {
    uintptr_t b = (uintptr_t)a->begin[i];
    uintptr_t s = a->sizes[i] > 0 ? (uintptr_t)a->sizes[i] : 0;
    if (a->types[i] & OMP_TGT_MAPTYPE_LITERAL)
      continue;
    if ((addr >= b && addr < b + s) || (s == 0 && addr == b)) {
      char name[128];
      maps_var_name(a, i, name, sizeof name);
      report_finding_rule("host-address-unmapped", name);
      report_error_set("0x%" PRIxPTR " is a host address inside argument %d "
                       "`%s` (host 0x%" PRIxPTR "[0:%" PRIuPTR "], not mapped)",
                       addr, i, name, b, s);
      return;
    }
    if (s == 0 && b && b < addr &&
        (nearest < 0 || b > (uintptr_t)a->begin[nearest]))
      nearest = i;
  }
  /* Elsewhere in host memory: a global, a stack frame, the heap, and the
   * argument whose (unattached) pointer the kernel followed. */
  char what[1024];
  if (host_object_describe(addr, a, what, sizeof what))
    report_error_set("%s", what);
  else if (nearest >= 0) {
    /* A pointer used in the region without a map of its data is passed as
     * a zero-size argument holding its host value: an address past that
     * value is the pointer's data, read on the device where it is not
     * mapped. */
    char name[128];
    uintptr_t b = (uintptr_t)a->begin[nearest];
    report_finding_rule("pointer-data-unmapped",
                        maps_var_name(a, nearest, name, sizeof name));
    report_error_set("0x%" PRIxPTR " is a host address %" PRIuPTR " byte%s "
                     "past the host value 0x%" PRIxPTR " of pointer `%s` "
                     "(argument %d, zero-size: the data it points to is not "
                     "mapped)",
                     addr, addr - b, addr - b == 1 ? "" : "s", b,
                     maps_var_name(a, nearest, name, sizeof name), nearest);
  } else
    explain_by_value_pointer(a, addr);
}

void host_objects_explain_fault(struct device *dev, const void *region,
                                const struct map_args *a) {
  if (!dev->plugin->ops.get_last_error)
    return;
  __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  if (RTL_CALL(LAUNCH_FAULT_LAST_ERROR, &dev->plugin->ops, get_last_error)(
          dev->rtl_id, &err) != 0 ||
      !err.fault_addr)
    return;
  uintptr_t addr = (uintptr_t)err.fault_addr;
  if (err.fault_kind == 3 /* execute */ && explain_host_call(dev, region, addr))
    return;
  struct mapping_range e;
  if (mapping_entry_of_host(&dev->map, addr, &e)) {
    report_finding_rule("host-pointer-of-mapped", e.name);
    report_error_set("0x%" PRIxPTR " is a host address inside `%s` (host "
                     "0x%" PRIxPTR "[0:%" PRIuPTR "], mapped to device 0x%" PRIxPTR
                     "; the kernel used the host pointer instead of the "
                     "device copy)",
                     addr, e.name[0] ? e.name : "?", e.hst_begin,
                     e.hst_end - e.hst_begin, e.tgt_begin);
    return;
  }
  /* The plugin's words are in the error already (device_plugin_cause
   * took them from get_last_error). */
  if (explain_device_fault(dev, a, addr, report_error_get()))
    return;
  /* Memory of an entry removed earlier: simdevice keeps freed memory
   * inaccessible for a while, so a kept device pointer faults here. */
  struct mapping_removed r;
  if (mapping_removed_at(&dev->map, addr, &r)) {
    report_finding_rule("freed-device-copy", r.name);
    report_error_set("device 0x%" PRIxPTR " was the device copy of `%s` "
                     "(host 0x%" PRIxPTR " [0:%" PRIuPTR "]), unmapped and "
                     "freed by an earlier construct",
                     addr, r.name[0] ? r.name : "unknown", r.hst_begin,
                     r.tgt_end - r.tgt_begin);
    explain_by_value_pointer(a, addr);
    return;
  }
  explain_unmapped(a, addr);
}
