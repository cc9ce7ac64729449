/*
 * launch.c - one target region: map the arguments, build the kernel's
 * parameter list (one 64-bit value per TARGET_PARAM entry, plus the leading
 * dyn_ptr of clang 19+), launch, release the privates, unmap.
 *
 * Thread safety: no state of its own but the per-thread tripcount; devices
 * and their tables lock themselves.
 */
#include "launch.h"
#include "stale_check.h"
#include "async.h"
#include "faults.h"
#include "lock_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_objects.h"
#include "mapping_ops.h"
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

/* ---- the region ---------------------------------------------------------- */

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
  if (!rec) {
    if (device_submit_pointer(dev, field, &value, a->base[i], NULL) != 0)
      return -1;
    if (stale_check_on())
      maps_note_runtime_write(dev, (uintptr_t)a->base[i], &value,
                              sizeof value);
    return 0;
  }
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

/* A region, completed before the return. */
int launch_region(struct device *dev, const struct launch_request *req) {
  return launch_region_async(dev, req, NULL);
}

/* Argument arrays up to this many entries live on launch_region_async's
 * stack. */
#define SMALL_ARGS 16

/* One launch being dispatched: the kernel, its parameter arrays and the
 * private copies made for it (launch_region_async's jobs share it). */
struct launch {
  struct device *dev;
  const struct launch_request *req;
  struct async_record *rec;
  struct device_entry kernel;
  struct maps_construct *maps; /* NULL: nothing mapped (no map entries) */
  int32_t n;                   /* kernel parameters */
  void **params;
  ptrdiff_t *offsets;
  void **privates; /* device copies of (first)private entries (sync only) */
  int32_t num_privates;
  int32_t *param_of; /* argument index -> its parameter, or -1 */
  void *params_small[SMALL_ARGS], *privates_small[SMALL_ARGS];
  ptrdiff_t offsets_small[SMALL_ARGS];
  int32_t param_of_small[SMALL_ARGS];
};

/* The region's kernel on this device: 0, or -1 with the cause recorded. */
static int find_kernel(struct launch *l) {
  if (device_lookup_entry(l->dev, l->req->host_ptr, &l->kernel) != 0)
    return -1;
  if (!l->kernel.tgt_addr) {
    report_error_set("target region `%s` has no code in the image loaded on "
                     "device %d (the image lacks its entry)",
                     l->kernel.name ? l->kernel.name : "?", l->dev->id);
    return -1;
  }
  return 0;
}

/* Map the region's arguments. Everything the undo of a failure needs is
 * allocated here, before the mappings exist: an undo that could run out of
 * memory would leak them. A region without map entries (an empty `target`)
 * has nothing to map: no construct, no table lock, no allocation. */
static int begin_maps(struct launch *l) {
  const struct map_args *a = &l->req->args;
  if (a->num == 0 && !l->rec)
    return 0;
  l->maps = maps_construct_new(l->dev, a, l->rec);
  if (!l->maps)
    return -1;
  if (maps_construct_begin(l->maps) != 0) {
    maps_construct_free(l->maps);
    l->maps = NULL;
    return -1;
  }
  return 0;
}

/* The parameter, offset, private and index arrays. Most regions have few
 * arguments: their arrays live on the stack (four calloc/free pairs were a
 * fifth of the host's work for an empty region). An asynchronous launch
 * hands params and offsets to the record, which frees them later: those
 * stay on the heap. */
static int alloc_arrays(struct launch *l) {
  const struct map_args *a = &l->req->args;
  int32_t n = l->req->dyn_ptr != LAUNCH_DYN_PTR_NONE ? 1 : 0;
  for (int32_t i = 0; i < a->num; i++)
    n += (a->types[i] & OMP_TGT_MAPTYPE_TARGET_PARAM) != 0;
  l->n = n;
  if (!l->rec && n + 1 <= SMALL_ARGS) {
    /* zeroed as far as calloc would (n + 1 entries), not all 16; a region
     * without parameters (an empty `target`) needs no memset call */
    l->params = l->params_small;
    l->offsets = l->offsets_small;
    for (int32_t j = 0; j <= n; j++) {
      l->params[j] = NULL;
      l->offsets[j] = 0;
    }
  } else {
    l->params = calloc((size_t)n + 1, sizeof *l->params);
    l->offsets = calloc((size_t)n + 1, sizeof *l->offsets);
  }
  if (a->num + 1 <= SMALL_ARGS) {
    /* not zeroed: build_params sets param_of[i] before any read, and
     * privates is filled up to num_privates */
    l->privates = l->privates_small;
    l->param_of = l->param_of_small;
  } else {
    l->privates = calloc((size_t)a->num + 1, sizeof *l->privates);
    l->param_of = calloc((size_t)a->num + 1, sizeof *l->param_of);
  }
  if (!l->params || !l->offsets || !l->privates || !l->param_of) {
    report_error_set("out of host memory for %d kernel arguments", n);
    return -1;
  }
  return 0;
}

/* Device memory for a private copy of `size` bytes for this launch: freed
 * after it (l->privates), or with the record of an asynchronous one. */
static void *private_alloc(struct launch *l, int64_t size) {
  void *tgt = device_alloc(l->dev, private_alloc_size(size), NULL,
                           TARGET_ALLOC_DEFAULT);
  if (!tgt)
    return NULL;
  if (!l->rec) {
    l->privates[l->num_privates++] = tgt;
    return tgt;
  }
  if (async_defer_device_free(l->rec, tgt) != 0) {
    device_delete(l->dev, tgt);
    return NULL;
  }
  return tgt;
}

/* PRIVATE|ATTACH (LLVM 22+, #160760): a private copy of the pointer at
 * base, initialised to its pointee's device address when the pointee
 * [begin] is mapped, else to the pointer's host value. Its parameter is
 * the private copy's device address. */
static int private_attach_param(struct launch *l, int32_t i, void **param) {
  const struct map_args *a = &l->req->args;
  struct async_record *rec = l->rec;
  uintptr_t host_value, begin = (uintptr_t)a->begin[i];
  memcpy(&host_value, a->base[i], sizeof host_value);
  uintptr_t dev_begin = mapping_device_address(&l->dev->map, begin);
  uintptr_t value = dev_begin ? dev_begin - (begin - host_value) : host_value;
  void *tgt = private_alloc(l, sizeof value);
  if (!tgt)
    return -1;
  *param = tgt;
  if (!rec)
    return device_submit(l->dev, tgt, &value, sizeof value) != 0 ? -1 : 0;
  /* a queued copy reads its source later: a cell freed with the record */
  uintptr_t *cell = malloc(sizeof *cell);
  if (!cell) {
    report_error_set("out of host memory for a PRIVATE|ATTACH pointer");
    return -1;
  }
  *cell = value;
  if (async_defer_host_free(rec, cell) != 0) {
    free(cell);
    return -1;
  }
  return async_submit(rec, tgt, cell, sizeof value, NULL) != 0 ? -1 : 0;
}

/* (first)private argument i: a device copy of the host object for this
 * launch, distinct from it also under unified_shared_memory (no hst_ptr);
 * its parameter value into *param. */
static int private_param(struct launch *l, int32_t i, void **param) {
  const struct map_args *a = &l->req->args;
  struct async_record *rec = l->rec;
  int64_t size = a->sizes[i];
  if (a->types[i] & OMP_TGT_MAPTYPE_ATTACH)
    return private_attach_param(l, i, param);
  void *tgt = private_alloc(l, size);
  if (!tgt)
    return -1;
  if ((a->types[i] & OMP_TGT_MAPTYPE_TO) && size > 0 &&
      (rec ? async_submit(rec, tgt, a->begin[i], size, NULL)
           : device_submit(l->dev, tgt, a->begin[i], size)) != 0)
    return -1;
  *param = (char *)tgt - ((char *)a->begin[i] - (char *)a->base[i]);
  return 0;
}

/* The parameter of TARGET_PARAM argument i into *param. */
static int param_value(struct launch *l, int32_t i, void **param) {
  const struct map_args *a = &l->req->args;
  int64_t type = a->types[i];
  if (type & OMP_TGT_MAPTYPE_LITERAL) {
    /* The value itself (seed 000: args_base). A host function pointer
     * passed by value becomes its declare-target-indirect twin. */
    *param = literal_param(l->dev, a, i);
    return 0;
  }
  if (type & OMP_TGT_MAPTYPE_PRIVATE)
    return private_param(l, i, param);
  if (maps_kernel_arg(l->dev, a->base[i], a->begin[i], a->sizes[i], type,
                      param) != 0)
    return -1;
  /* an unmapped zero-size pointer keeps its host value; if that is a host
   * function, the device needs its indirect twin (seed 003) */
  if (a->sizes[i] == 0 && *param == a->base[i])
    *param = device_translate_fptr(l->dev, *param);
  return 0;
}

/* One parameter per TARGET_PARAM argument, lambda captures fixed up in
 * their closures. */
static int build_params(struct launch *l) {
  const struct map_args *a = &l->req->args;
  int32_t k = 0;
  if (l->req->dyn_ptr == LAUNCH_DYN_PTR_FIRST)
    l->params[k++] = NULL; /* CPU kernels never read it (clang-abi.md 6) */
  for (int32_t i = 0; i < a->num; i++) {
    int64_t type = a->types[i];
    l->param_of[i] = -1;
    if (is_lambda_capture(type)) {
      /* maps_check_args made sure the parent comes first */
      int32_t parent =
          (int32_t)((uint64_t)type >> OMP_TGT_MAPTYPE_MEMBER_OF_SHIFT) - 1;
      if (l->param_of[parent] >= 0 &&
          fix_lambda_capture(l->dev, a, i, parent,
                             l->params[l->param_of[parent]], l->rec) != 0)
        return -1;
      continue;
    }
    if (!(type & OMP_TGT_MAPTYPE_TARGET_PARAM))
      continue;
    l->param_of[i] = k;
    if (param_value(l, i, &l->params[k]) != 0)
      return -1;
    k++;
  }
  if (l->req->dyn_ptr == LAUNCH_DYN_PTR_LAST)
    l->params[k] = NULL; /* the entry clang 23 appends, value unused */
  return 0;
}

/* The launch in the JSON trace and under LIBOMPTARGET_INFO 0x01. */
static void note_launch(const struct launch *l) {
  const struct map_args *a = &l->req->args;
  const struct launch_request *req = l->req;
  if (trace_enabled()) {
    int32_t *param_arg = calloc((size_t)l->n + 1, sizeof *param_arg);
    if (param_arg) { /* the trace is best effort: no failure for it */
      /* the dyn_ptr, when there is one: first or last */
      param_arg[req->dyn_ptr == LAUNCH_DYN_PTR_LAST ? l->n - 1 : 0] = -1;
      for (int32_t i = 0; i < a->num; i++)
        if (l->param_of[i] >= 0)
          param_arg[l->param_of[i]] = i;
      struct trace_launch launched = {kernel_exec_mode(&l->kernel),
                                      req->num_teams, req->thread_limit,
                                      req->tripcount};
      trace_kernel(l->kernel.name, l->n, l->params, param_arg, a, &launched);
      free(param_arg);
    }
  }
  if (REPORT_INFO_ON(INFO_KERNEL_ARGS)) {
    report_info(INFO_KERNEL_ARGS,
                "Launching kernel %s on device %d with %d parameters, "
                "num_teams=%d thread_limit=%d",
                l->kernel.name ? l->kernel.name : "?", l->dev->id, l->n,
                req->num_teams, req->thread_limit);
    for (int32_t j = 0; j < l->n; j++)
      report_info(INFO_KERNEL_ARGS, "  param %d = %p", j, l->params[j]);
  }
}

/* Run the kernel now, or queue it on the record. */
static int run_kernel(struct launch *l) {
  const struct launch_request *req = l->req;
  if (!l->rec) {
    if (device_run_kernel(l->dev, &l->kernel, l->params, l->offsets, l->n,
                          req->num_teams, req->thread_limit, req->tripcount,
                          req->kargs_version) == 0)
      return 0;
    host_objects_explain_fault(l->dev, req->host_ptr, &req->args);
    return -1;
  }
  /* The plugin may read the parameter arrays until the launch runs. */
  void **async_params = l->params;
  ptrdiff_t *async_offsets = l->offsets;
  if (async_defer_host_free(l->rec, l->params) != 0)
    return -1;
  l->params = NULL;
  if (async_defer_host_free(l->rec, l->offsets) != 0)
    return -1;
  l->offsets = NULL;
  return async_launch(l->rec, &l->kernel, async_params, async_offsets, l->n,
                      req->num_teams, req->thread_limit, req->tripcount,
                      req->kargs_version);
}

/* Free the privates, then unmap (rc 0) or undo the mappings (rc -1), then
 * the arrays. Returns the region's status. */
static int finish_launch(struct launch *l, int rc) {
  for (int32_t j = 0; j < l->num_privates; j++)
    device_delete(l->dev, l->privates[j]);
  if (rc == 0) {
    if (l->maps) /* NULL: nothing mapped, nothing to unmap */
      rc = maps_construct_end(l->maps);
  } else {
    /* Nothing queued may still run while the mappings are undone. */
    if (l->rec && async_record_wait(l->rec) == ASYNC_FAILED)
      report_error_set("%s", async_record_error(l->rec));
    /* Undo the reference counts without copying device data back: the host
     * version of the region runs next and must see the host's own data.
     * The undo allocates nothing; its own messages would only hide the
     * region's cause. */
    /* the table the failure report prints */
    mapping_keep_for_report_locking(&l->dev->map, l->dev->id);
    if (l->maps) {
      char saved[2048];
      snprintf(saved, sizeof saved, "%s", report_error_get());
      maps_construct_undo(l->maps);
      report_error_replace(saved);
    }
  }
  maps_construct_free(l->maps);
  if (l->params != l->params_small)
    free(l->params);
  if (l->offsets != l->offsets_small)
    free(l->offsets);
  if (l->privates != l->privates_small)
    free(l->privates);
  if (l->param_of != l->param_of_small)
    free(l->param_of);
  __atomic_store_n(&l->dev->used, true, __ATOMIC_RELAXED);
  return rc;
}

/*
 * The dispatch stage (seed 004). Without a record everything completes
 * before the return. With one, the private copies' TO copies, the kernel
 * and the FROM copies go on the record's queue, and what must follow them
 * (freeing privates and the argument arrays, shadow restores, removals)
 * is deferred to the record's completion (src/async.h).
 */
int launch_region_async(struct device *dev, const struct launch_request *req,
                        struct async_record *rec) {
  struct launch l;
  l.dev = dev;
  l.req = req;
  l.rec = rec;
  l.maps = NULL;
  l.n = 0;
  l.params = l.privates = NULL;
  l.offsets = NULL;
  l.param_of = NULL;
  l.num_privates = 0;
  if (find_kernel(&l) != 0 || begin_maps(&l) != 0)
    return -1;
  int rc = -1;
  if (alloc_arrays(&l) == 0 && build_params(&l) == 0) {
    note_launch(&l);
    rc = run_kernel(&l);
  }
  return finish_launch(&l, rc);
}
