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
 * Thread safety: no shared state. The argument scan reads the construct's
 * host memory, which the calling thread owns for the construct's length.
 */
#include "host_objects.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

#include "hostsyms.h"

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
  char region[512] = "", where[640] = "", sym[256];
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
  if (find_carrier(addr, a, &arg, &offset, &value)) {
    char name[128];
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
  snprintf(buf, len, "0x%" PRIxPTR " is a host address, in %s%s", addr, where,
           carrier);
  return true;
}
