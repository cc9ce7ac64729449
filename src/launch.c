/*
 * launch.c - one target region: map the arguments, build the kernel's
 * parameter list (one 64-bit value per TARGET_PARAM entry, plus the leading
 * dyn_ptr of clang 19+), launch, release the privates, unmap.
 *
 * Thread safety: no state of its own but the per-thread tripcount; devices
 * and their tables lock themselves.
 */
#include "launch.h"
#include "async.h"
#include "failure.h"
#include "faults.h"
#include "lock_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_objects.h"
#include "hostsyms.h"
#include "registry.h"
#include "report.h"
#include "trace.h"

/* ---- device-id resolution --------------------------------------------- */

enum target_resolution target_resolve(int64_t device_id, struct device **dev) {
  *dev = NULL;
  if (settings_get()->offload == POLICY_DISABLED) {
    report_info(INFO_KERNEL_ARGS,
                "offloading is disabled (OMP_TARGET_OFFLOAD=disabled)");
    return TARGET_ON_HOST;
  }
  int n = devices_count();
  if (device_id == OFFLOAD_DEVICE_DEFAULT)
    device_id = devices_default_id();
  if (device_id == n && n > 0)
    return TARGET_ON_HOST; /* omp_get_initial_device() */
  if (n == 0) {
    report_error_set("no offload device is available (no plugin reported a "
                     "device)");
    return TARGET_FAILED;
  }
  if (device_id < 0 || device_id > n) {
    report_error_set("device id %" PRId64 " is out of range: %d device(s) "
                     "available, ids 0..%d, %d is the host",
                     device_id, n, n - 1, n);
    return TARGET_FAILED;
  }
  *dev = device_get(device_id);
  if (!*dev) {
    report_error_set("device %" PRId64 " is not available", device_id);
    return TARGET_FAILED;
  }
  if (device_ready(*dev) != 0)
    return TARGET_FAILED;
  return TARGET_ON_DEVICE;
}

/* ---- tripcount (clang 13/14) ------------------------------------------ */

/* One thread-local: each access to one costs a __tls_get_addr call in a
 * shared library, and every clang 13/14 region pops. */
static __thread struct {
  int64_t device; /* INT64_MIN: nothing pushed */
  uint64_t tripcount;
} pushed_trip = {INT64_MIN, 0};

void launch_push_tripcount(int64_t device_id, uint64_t tripcount) {
  pushed_trip.device = device_id;
  pushed_trip.tripcount = tripcount;
}

uint64_t launch_pop_tripcount(int64_t device_id) {
  __typeof__(pushed_trip) *p = &pushed_trip;
  if (p->device == INT64_MIN)
    return 0;
  uint64_t t = p->device == device_id ? p->tripcount : 0;
  p->device = INT64_MIN;
  return t;
}

/* ---- map-type decoding ------------------------------------------------- */

const char *launch_map_type_string(int64_t type, char *buf, size_t len) {
  const char *motion = "alloc";
  switch (type & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)) {
  case OMP_TGT_MAPTYPE_TO: motion = "to"; break;
  case OMP_TGT_MAPTYPE_FROM: motion = "from"; break;
  case OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM: motion = "tofrom"; break;
  }
  size_t used = (size_t)snprintf(buf, len, "%s", motion);
  /* the bit names the JSON trace uses too (trace.c) */
  int64_t bit;
  const char *bit_name;
  for (size_t i = 0; (bit_name = map_type_bit_name(i, &bit)) && used < len;
       i++)
    if ((type & bit) && !(bit & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)))
      used += (size_t)snprintf(buf + used, len - used, "|%s", bit_name);
  uint64_t member = (uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT;
  if (member && used < len)
    used += (size_t)snprintf(buf + used, len - used, "|member_of(%" PRIu64 ")",
                             member);
  int64_t unknown = type & ~OMP_TGT_MAPTYPE_KNOWN_BITS;
  if (unknown && used < len)
    snprintf(buf + used, len - used, "|unknown(0x%" PRIx64 ")",
             (uint64_t)unknown);
  return buf;
}

void launch_print_args(const char *what, const ident_t *loc,
                       const struct map_args *a) {
  if (!REPORT_INFO_ON(INFO_KERNEL_ARGS))
    return;
  char where[512];
  report_info(INFO_KERNEL_ARGS, "%s at %s with %d arguments:", what,
              report_location(loc, where, sizeof where), a->num);
  for (int32_t i = 0; i < a->num; i++) {
    char type[160], name[128];
    report_info(INFO_KERNEL_ARGS,
                "  [%d] %s(%s) base=%p begin=%p size=%" PRId64
                " type=0x%" PRIx64,
                i, launch_map_type_string(a->types[i], type, sizeof type),
                maps_var_name(a, i, name, sizeof name), a->base[i],
                a->begin[i], a->sizes[i], (uint64_t)a->types[i]);
  }
}

/* ---- the region ---------------------------------------------------------- */

/* A kernel that jumped to a host function: the device process took an
 * execute fault at an address with no row in its indirect table. Name the
 * host function (seed 003); false when `addr` is no host function. */
static bool explain_host_call(struct device *dev,
                              const struct launch_request *req,
                              uintptr_t addr) {
  char fn[256];
  if (!host_function_at((const void *)addr, fn, sizeof fn))
    return false;
  struct device_entry kernel;
  memset(&kernel, 0, sizeof kernel);
  pthread_mutex_lock(&dev->lock); /* device_lookup_entry would add a cause */
  for (size_t i = 0; i < dev->num_entries; i++)
    if (dev->entries[i].host_addr == req->host_ptr)
      kernel = dev->entries[i];
  pthread_mutex_unlock(&dev->lock);
  report_error_set("kernel `%s` called host function `%s` at 0x%" PRIxPTR
                   ": `%s` is not declare target indirect, so device %d has "
                   "no version of it (a host function address means nothing "
                   "in the device's address space; declare it with `#pragma "
                   "omp declare target indirect to(%s)`)",
                   kernel.name ? kernel.name : "?", fn, addr, fn, dev->id, fn);
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

/* A device address the kernel faulted at, named by the mapped object it
 * hit or ran past (simdevice puts a guard page after each allocation), and
 * the construct's argument that mapped it. The caller holds dev->map.lock. */
static bool explain_device_fault(struct device *dev,
                                 const struct launch_request *req,
                                 uintptr_t addr) {
  LOCK_ASSERT_HELD(&dev->map.lock);
  const long page = sysconf(_SC_PAGESIZE); /* 64 KiB on most POWER machines */
  const uintptr_t guard = page > 0 ? (uintptr_t)page : 4096;
  struct mapping_entry *e = NULL;
  uintptr_t past = 0; /* bytes past the end of e (0: the first byte after) */
  bool beyond = false;   /* addr is after e, not inside it */
  for (uintptr_t off = 0; off <= guard && !e; off++)
    if ((e = mapping_find_device(&dev->map, addr - off)) && off) {
      beyond = true;
      past = addr - (e->tgt_begin + (e->hst_end - e->hst_begin));
    }
  if (!e)
    return false;
  char name[128] = "";
  int32_t i = argument_holding(&req->args, e->hst_begin);
  if (i >= 0)
    maps_var_name(&req->args, i, name, sizeof name);
  if (!name[0])
    snprintf(name, sizeof name, "%s", e->name[0] ? e->name : "unknown");
  char arg[48] = "";
  if (i >= 0)
    snprintf(arg, sizeof arg, "argument %d, ", i);
  uintptr_t size = e->hst_end - e->hst_begin;
  if (beyond)
    report_error_set("device 0x%" PRIxPTR " is %" PRIuPTR " byte%s past the "
                     "end of `%s` (%s%" PRIuPTR " bytes mapped from host "
                     "0x%" PRIxPTR ")",
                     addr, past, past == 1 ? "" : "s", name, arg, size,
                     e->hst_begin);
  else
    report_error_set("device 0x%" PRIxPTR " is inside `%s` (%s%" PRIuPTR
                     " bytes mapped from host 0x%" PRIxPTR ")",
                     addr, name, arg, size, e->hst_begin);
  return true;
}

/* A device pointer passed by value (is_device_ptr, firstprivate): name it
 * when addr lies shortly past its value (a kept use_device_ptr result whose
 * data was unmapped since). Returns whether one was named. */
static bool explain_by_value_pointer(const struct launch_request *req,
                                     uintptr_t addr) {
  const struct map_args *a = &req->args;
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
  report_error_set("0x%" PRIxPTR " is %" PRIuPTR " byte%s past 0x%" PRIxPTR
                   ", the value of `%s` (argument %d, passed by value)",
                   addr, addr - v, addr - v == 1 ? "" : "s", v,
                   name[0] ? name : "unknown", by_value);
  return true;
}

/* Explain a kernel fault in host terms: which host object the address lies
 * in, and whether it is mapped (the plugin only knows device addresses). */
static void launch_explain_fault(struct device *dev,
                                 const struct launch_request *req) {
  if (!dev->plugin->ops.get_last_error)
    return;
  __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  if (RTL_CALL(LAUNCH_FAULT_LAST_ERROR, &dev->plugin->ops, get_last_error)(
          dev->rtl_id, &err) != 0 ||
      !err.fault_addr)
    return;
  uintptr_t addr = (uintptr_t)err.fault_addr;
  if (err.fault_kind == 3 /* execute */ && explain_host_call(dev, req, addr))
    return;
  pthread_mutex_lock(&dev->map.lock);
  struct mapping_entry *e = mapping_find(&dev->map, addr);
  if (e) {
    report_error_set("0x%" PRIxPTR " is a host address inside `%s` (host "
                     "0x%" PRIxPTR "[0:%" PRIuPTR "], mapped to device 0x%" PRIxPTR
                     "; the kernel used the host pointer instead of the "
                     "device copy)",
                     addr, e->name[0] ? e->name : "?", e->hst_begin,
                     e->hst_end - e->hst_begin, e->tgt_begin);
    pthread_mutex_unlock(&dev->map.lock);
    return;
  }
  if (explain_device_fault(dev, req, addr)) {
    pthread_mutex_unlock(&dev->map.lock);
    return;
  }
  /* Memory of an entry removed earlier: simdevice keeps freed memory
   * inaccessible for a while, so a kept device pointer faults here. */
  const struct mapping_removed *r = mapping_find_removed(&dev->map, addr);
  if (r) {
    report_error_set("device 0x%" PRIxPTR " was the device copy of `%s` "
                     "(host 0x%" PRIxPTR " [0:%" PRIuPTR "]), unmapped and "
                     "freed by an earlier construct",
                     addr, r->name[0] ? r->name : "unknown", r->hst_begin,
                     r->tgt_end - r->tgt_begin);
  }
  pthread_mutex_unlock(&dev->map.lock);
  if (r) {
    explain_by_value_pointer(req, addr);
    return;
  }
  /* Not mapped: is it inside one of this construct's host objects? */
  const struct map_args *a = &req->args;
  int32_t nearest = -1; /* zero-size argument with the closest begin below */
  for (int32_t i = 0; i < a->num; i++) {
    uintptr_t b = (uintptr_t)a->begin[i];
    uintptr_t s = a->sizes[i] > 0 ? (uintptr_t)a->sizes[i] : 0;
    if (a->types[i] & OMP_TGT_MAPTYPE_LITERAL)
      continue;
    if ((addr >= b && addr < b + s) || (s == 0 && addr == b)) {
      char name[128];
      report_error_set("0x%" PRIxPTR " is a host address inside argument %d "
                       "`%s` (host 0x%" PRIxPTR "[0:%" PRIuPTR "], not mapped)",
                       addr, i, maps_var_name(a, i, name, sizeof name), b, s);
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
    report_error_set("0x%" PRIxPTR " is a host address %" PRIuPTR " byte%s "
                     "past the host value 0x%" PRIxPTR " of pointer `%s` "
                     "(argument %d, zero-size: the data it points to is not "
                     "mapped)",
                     addr, addr - b, addr - b == 1 ? "" : "s", b,
                     maps_var_name(a, nearest, name, sizeof name), nearest);
  } else
    explain_by_value_pointer(req, addr);
}

/* A lambda capture (clang 13-22): LITERAL|PTR_AND_OBJ|IMPLICIT|MEMBER_OF,
 * not a kernel parameter. Its base is where the capture (a pointer or a
 * reference) lives inside the parent closure, its begin the host address
 * the capture holds. */
static bool is_lambda_capture(int64_t type) {
  const int64_t bits = OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PTR_AND_OBJ |
                       OMP_TGT_MAPTYPE_IMPLICIT;
  return (type & bits) == bits && !(type & OMP_TGT_MAPTYPE_TARGET_PARAM) &&
         ((uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT) != 0;
}

/* Point the capture of entry i inside the device copy of its closure (the
 * parameter `parent_value`, the device address of the closure's host base)
 * at the device copy of what it captures, as LLVM does; a capture of
 * something unmapped keeps its host value (LLVM ignores it too). */
static int fix_lambda_capture(struct device *dev, const struct map_args *a,
                              int32_t i, int32_t parent, void *parent_value,
                              struct async_record *rec) {
  void *value = NULL;
  void *captured = a->begin[i];
  int64_t size = a->sizes[i];
  if (captured == a->base[i]) {
    /* `this` captured (clang 13-22): the entry points at the closure's
     * field itself, which holds the object pointer; OpenMP 5.0 2.19.7.1
     * gives the kernel the mapped object (LLVM 13-19 leave the host value) */
    memcpy(&captured, a->base[i], sizeof captured);
    size = 1;
    if (maps_kernel_arg(dev, captured, captured, size, 0, &value) != 0) {
      char closure[128];
      report_error_set("the lambda or closure `%s` (argument %d) captures "
                       "`this` (host %p, argument %d), which is not mapped: "
                       "map it, e.g. map(tofrom: this[0:1])",
                       maps_var_name(a, parent, closure, sizeof closure),
                       parent, captured, i);
      return -1;
    }
  } else if (maps_kernel_arg(dev, a->begin[i], a->begin[i], a->sizes[i],
                      a->types[i] & ~OMP_TGT_MAPTYPE_PTR_AND_OBJ, &value) != 0) {
    /* clang gives a capture no name: name the closure it belongs to */
    char closure[128];
    report_error_set("it is a variable that the lambda or closure `%s` "
                     "(argument %d) captures by reference (argument %d): "
                     "map the variable, or capture it by value",
                     maps_var_name(a, parent, closure, sizeof closure), parent,
                     i);
    return -1;
  }
  if (value == captured)
    return 0;
  char *field = (char *)parent_value + ((char *)a->base[i] -
                                        (char *)a->base[parent]);
  report_debug("lambda capture %d: device 0x%p (in the closure of argument "
               "%d) = %p (host %p)",
               i, (void *)field, parent, value, captured);
  if (!rec)
    return device_submit_pointer(dev, field, &value, a->base[i], NULL);
  void **held = malloc(sizeof *held); /* read when the queue runs */
  if (!held) {
    report_error_set("target: out of host memory for a lambda capture");
    return -1;
  }
  *held = value;
  if (async_defer_host_free(rec, held) != 0) {
    free(held);
    return -1;
  }
  return async_submit_pointer(rec, field, held, a->base[i], NULL);
}

/* The device size of a (first)private copy: LLVM's plugins hand out
 * malloc-aligned (16-byte) memory and kernels built at -O1+ rely on it
 * (aligned SSE loads of a firstprivate array); simdevice ends each
 * allocation at an 8-byte boundary before its guard page, so a size rounded
 * up to 16 keeps the copy 16-byte aligned. */
static int64_t private_alloc_size(int64_t size) {
  return size > 0 ? (size + 15) & ~(int64_t)15 : 16;
}

/* The value of LITERAL argument i. clang writes a by-value scalar smaller
 * than a pointer (an `int` firstprivate) into the first bytes of the slot
 * and leaves the rest unset (at -O0): only the value's bytes are read, the
 * rest are 0. Only a pointer-sized value can be a host function whose
 * declare-target-indirect twin the device needs (seed 003). */
static void *literal_param(struct device *dev, const struct map_args *a,
                           int32_t i) {
  void *value = NULL;
  int64_t size = a->sizes[i];
  if (size <= 0 || size >= (int64_t)sizeof value)
    return device_translate_fptr(dev, a->base[i]);
  memcpy(&value, &a->base[i], (size_t)size);
  return value;
}

/* The kernel's execution mode for the trace, from the `<kernel>_exec_mode`
 * global that clang emits in GPU images (LLVM's OMP_TGT_EXEC_MODE_*); CPU
 * images (simdevice) have none: NULL. */
static const char *kernel_exec_mode(const struct device_entry *k) {
  char sym[512];
  if (!k->lib || !k->name ||
      snprintf(sym, sizeof sym, "%s_exec_mode", k->name) >= (int)sizeof sym)
    return NULL;
  for (int32_t i = 0; i < k->lib->num_images; i++) {
    uint8_t mode;
    const struct image_info *im = &k->lib->images[i];
    if (elf_image_read_symbol(im->payload, im->payload_size, sym, &mode,
                              sizeof mode) != 0)
      continue;
    switch (mode) {
    case 1: return "generic";
    case 2: return "spmd";
    case 3: return "generic-spmd";
    default: return "unknown";
    }
  }
  return NULL;
}

/* One private (firstprivate) copy made for this launch. */
int launch_region(struct device *dev, const struct launch_request *req) {
  return launch_region_async(dev, req, NULL);
}

/*
 * The dispatch stage (seed 004). Without a record everything completes
 * before the return. With one, the private copies' TO copies, the kernel
 * and the FROM copies go on the record's queue, and what must follow them
 * (freeing privates and the argument arrays, shadow restores, removals)
 * is deferred to the record's completion (src/async.h).
 */
/* Argument arrays up to this many entries live on launch_region_async's
 * stack. */
#define SMALL_ARGS 16

int launch_region_async(struct device *dev, const struct launch_request *req,
                        struct async_record *rec) {
  const struct map_args *a = &req->args;
  struct device_entry kernel;
  int rc = -1;
  void **params = NULL;
  ptrdiff_t *offsets = NULL;
  void **privates = NULL; /* device copies of (first)private entries */
  int32_t num_privates = 0;
  int32_t *param_of = NULL; /* argument index -> its parameter, or -1 */
  void *params_small[SMALL_ARGS], *privates_small[SMALL_ARGS];
  ptrdiff_t offsets_small[SMALL_ARGS];
  int32_t param_of_small[SMALL_ARGS];

  if (device_lookup_entry(dev, req->host_ptr, &kernel) != 0)
    return -1;
  if (!kernel.tgt_addr) {
    report_error_set("target region `%s` has no code in the image loaded on "
                     "device %d (the image lacks its entry)",
                     kernel.name ? kernel.name : "?", dev->id);
    return -1;
  }
  /* Everything the undo of a failure needs is allocated here, before the
   * mappings exist: an undo that could run out of memory would leak them. */
  /* A region without map entries (an empty `target`) has nothing to map:
   * no construct, no table lock, no allocation. */
  struct maps_construct *maps = NULL;
  if (a->num > 0 || rec) {
    maps = maps_construct_new(dev, a, rec);
    if (!maps)
      return -1;
    if (maps_construct_begin(maps) != 0) {
      maps_construct_free(maps);
      return -1;
    }
  }

  int32_t n = req->dyn_ptr ? 1 : 0;
  for (int32_t i = 0; i < a->num; i++)
    n += (a->types[i] & OMP_TGT_MAPTYPE_TARGET_PARAM) != 0;
  /* Most regions have few arguments: their arrays live on the stack (four
   * calloc/free pairs were a fifth of the host's work for an empty
   * region). An asynchronous launch hands params and offsets to the
   * record, which frees them later: those stay on the heap. */
  if (!rec && n + 1 <= SMALL_ARGS) {
    /* zeroed as far as calloc would (n + 1 entries), not all 16; a region
     * without parameters (an empty `target`) needs no memset call */
    params = params_small;
    offsets = offsets_small;
    for (int32_t j = 0; j <= n; j++) {
      params[j] = NULL;
      offsets[j] = 0;
    }
  } else {
    params = calloc((size_t)n + 1, sizeof *params);
    offsets = calloc((size_t)n + 1, sizeof *offsets);
  }
  if (a->num + 1 <= SMALL_ARGS) {
    /* not zeroed: the loop below sets param_of[i] before any read, and
     * privates is filled up to num_privates */
    privates = privates_small;
    param_of = param_of_small;
  } else {
    privates = calloc((size_t)a->num + 1, sizeof *privates);
    param_of = calloc((size_t)a->num + 1, sizeof *param_of);
  }
  if (!params || !offsets || !privates || !param_of) {
    report_error_set("out of host memory for %d kernel arguments", n);
    goto out_unmap;
  }

  int32_t k = 0;
  if (req->dyn_ptr)
    params[k++] = NULL; /* CPU kernels never read it (clang-abi.md 6) */
  for (int32_t i = 0; i < a->num; i++) {
    int64_t type = a->types[i];
    param_of[i] = -1;
    if (is_lambda_capture(type)) {
      /* maps_check_args made sure the parent comes first */
      int32_t parent =
          (int32_t)((uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT) - 1;
      if (param_of[parent] >= 0 &&
          fix_lambda_capture(dev, a, i, parent, params[param_of[parent]],
                             rec) != 0)
        goto out_free_privates;
      continue;
    }
    if (!(type & OMP_TGT_MAPTYPE_TARGET_PARAM))
      continue;
    param_of[i] = k;
    if (type & OMP_TGT_MAPTYPE_LITERAL) {
      /* The value itself (seed 000: args_base). A host function pointer
       * passed by value becomes its declare-target-indirect twin. */
      params[k++] = literal_param(dev, a, i);
    } else if (type & OMP_TGT_MAPTYPE_PRIVATE) {
      /* (first)private: a device copy of the host object for this launch,
       * distinct from it also under unified_shared_memory (no hst_ptr) */
      int64_t size = a->sizes[i];
      void *tgt = device_alloc(dev, private_alloc_size(size), NULL,
                               TARGET_ALLOC_DEFAULT);
      if (!tgt)
        goto out_free_privates;
      if (rec && async_defer_device_free(rec, tgt) != 0) {
        device_delete(dev, tgt);
        goto out_free_privates;
      }
      if (!rec)
        privates[num_privates++] = tgt;
      if ((type & OMP_TGT_MAPTYPE_TO) && size > 0 &&
          (rec ? async_submit(rec, tgt, a->begin[i], size, NULL)
               : device_submit(dev, tgt, a->begin[i], size)) != 0)
        goto out_free_privates;
      params[k++] = (char *)tgt - ((char *)a->begin[i] - (char *)a->base[i]);
    } else {
      if (maps_kernel_arg(dev, a->base[i], a->begin[i], a->sizes[i], type,
                          &params[k]) != 0)
        goto out_free_privates;
      /* an unmapped zero-size pointer keeps its host value; if that is a
       * host function, the device needs its indirect twin (seed 003) */
      if (a->sizes[i] == 0 && params[k] == a->base[i])
        params[k] = device_translate_fptr(dev, params[k]);
      k++;
    }
  }

  if (trace_enabled()) {
    int32_t *param_arg = calloc((size_t)n + 1, sizeof *param_arg);
    if (param_arg) { /* the trace is best effort: no failure for it */
      param_arg[0] = -1; /* the dyn_ptr, when there is one */
      for (int32_t i = 0; i < a->num; i++)
        if (param_of[i] >= 0)
          param_arg[param_of[i]] = i;
      struct trace_launch launched = {kernel_exec_mode(&kernel),
                                      req->num_teams, req->thread_limit,
                                      req->tripcount};
      trace_kernel(kernel.name, n, params, param_arg, a, &launched);
      free(param_arg);
    }
  }
  if (REPORT_INFO_ON(INFO_KERNEL_ARGS)) {
    report_info(INFO_KERNEL_ARGS,
                "Launching kernel %s on device %d with %d parameters, "
                "num_teams=%d thread_limit=%d",
                kernel.name ? kernel.name : "?", dev->id, n, req->num_teams,
                req->thread_limit);
    for (int32_t j = 0; j < n; j++)
      report_info(INFO_KERNEL_ARGS, "  param %d = %p", j, params[j]);
  }
  if (rec) {
    /* The plugin may read the parameter arrays until the launch runs. */
    void **async_params = params;
    ptrdiff_t *async_offsets = offsets;
    if (async_defer_host_free(rec, params) != 0)
      goto out_free_privates;
    params = NULL;
    if (async_defer_host_free(rec, offsets) != 0)
      goto out_free_privates;
    offsets = NULL;
    if (async_launch(rec, &kernel, async_params, async_offsets, n,
                     req->num_teams, req->thread_limit, req->tripcount) != 0)
      goto out_free_privates;
  } else if (device_launch(dev, &kernel, params, offsets, n, req->num_teams,
                           req->thread_limit, req->tripcount) != 0) {
    launch_explain_fault(dev, req);
    goto out_free_privates;
  }
  rc = 0;

out_free_privates:
  for (int32_t j = 0; j < num_privates; j++)
    device_delete(dev, privates[j]);
out_unmap:
  if (rc == 0) {
    if (maps) /* NULL: nothing mapped, nothing to unmap */
      rc = maps_construct_end(maps);
  } else {
    /* Nothing queued may still run while the mappings are undone. */
    if (rec && async_record_wait(rec) == ASYNC_FAILED)
      report_error_set("%s", async_record_error(rec));
    /* Undo the reference counts without copying device data back: the host
     * version of the region runs next and must see the host's own data.
     * The undo allocates nothing; its own messages would only hide the
     * region's cause. */
    pthread_mutex_lock(&dev->map.lock);
    failure_keep_table(dev); /* the table the failure report prints */
    pthread_mutex_unlock(&dev->map.lock);
    if (maps) {
      char saved[2048];
      snprintf(saved, sizeof saved, "%s", report_error_get());
      maps_construct_undo(maps);
      report_error_replace(saved);
    }
  }
  maps_construct_free(maps);
  if (params != params_small)
    free(params);
  if (offsets != offsets_small)
    free(offsets);
  if (privates != privates_small)
    free(privates);
  if (param_of != param_of_small)
    free(param_of);
  __atomic_store_n(&dev->used, true, __ATOMIC_RELAXED);
  return rc;
}
