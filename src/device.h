/*
 * device.h - one offload device: lazy initialisation, the images loaded on
 * it, the host-entry -> device-entry table, and thin wrappers around the
 * plugin's data and launch functions (so every plugin call goes through one
 * place, which the fault injector and the call tracer hook later).
 *
 * Also the default device: OMP_DEFAULT_DEVICE and omp_set_default_device.
 *
 * Thread safety: `lock` guards state, images and entries; the mapping table
 * has its own lock (mapping.h). The devices array itself is built once
 * (under device.c's devices_mutex) and never shrinks while the library is
 * loaded. The default device has its own lock (device.c).
 */
#ifndef SIMTARGET_DEVICE_H
#define SIMTARGET_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mapping.h"
#include "plugins.h"
#include "registry.h"

enum device_state { DEVICE_NEW = 0, DEVICE_READY, DEVICE_FAILED };

/* A host entry resolved on this device. */
struct device_entry {
  void *host_addr;  /* key: region id or host global */
  void *tgt_addr;   /* kernel function / global address on the device */
  const char *name;
  uint64_t size;
  int32_t flags;
  const struct registered_lib *lib; /* the library that added it */
};

struct device_image {
  struct registered_lib *lib;
  int32_t image_index;
  __tgt_target_table *table;
  uint64_t ompt_module_id; /* given by ompt_device_load */
  struct device_image *next;
};

struct device {
  int32_t id;           /* global id */
  struct plugin *plugin;
  int32_t rtl_id;       /* the plugin's own id for this device */
  pthread_mutex_t lock; /* guards everything below but `map` */
  enum device_state state;
  char failure[512];    /* why init failed, for later calls */
  uint64_t loaded_generation; /* libraries up to this one are loaded */
  /* device_ready's lock-free fast path: loaded_generation while the device
   * is READY, 0 otherwise (then the locked path runs). Written under `lock`,
   * read without it (atomics). */
  uint64_t ready_generation;
  struct device_image *images;
  struct device_entry *entries; /* sorted by host_addr */
  size_t num_entries, cap_entries;
  bool used;            /* a construct ran here (for device id -3) */
  bool unified_memory;  /* honours `requires unified_shared_memory`: host
                           memory is device memory. Written once under `lock`
                           before the device is READY, read without it after */
  struct mapping_table map;
  /* The plugin said it does not use names of device memory (name_range
   * returned 1): not asked again. Atomic: any host thread maps. */
  _Atomic bool names_unused;
};

/* Number of devices (loads the plugins on first use). */
HIDDEN int devices_count(void);
/* The number of devices the program sees (omp_get_num_devices,
 * __tgt_get_num_devices): devices_count, or 0 when offloading is disabled
 * (OMP_TARGET_OFFLOAD=disabled); it is also the initial device's id. */
HIDDEN int devices_visible_count(void);
/* The default device, what device id -1 means: libomp's default-device ICV
 * when the program has libomp, else ours (devices_own_default_id). */
HIDDEN int devices_default_id(void);
/* Ours: OMP_DEFAULT_DEVICE until devices_set_own_default_id (the
 * omp_get/set_default_device of this library) changes it; a negative id is
 * taken as 0. */
HIDDEN int devices_own_default_id(void);
HIDDEN void devices_set_own_default_id(int id);
/* Device `id` (already resolved: not -1/-2/-3), or NULL when out of range. */
HIDDEN struct device *device_get(int64_t id);
/* Initialise the device if needed and load every registered library's image
 * that it accepts. 0 on success; -1 with report_error_set() otherwise. */
HIDDEN int device_ready(struct device *dev);
/* Translate a host entry (kernel region id or global) to the device. Returns
 * 0 and fills *out, or -1 (with report_error_set) when the entry is unknown. */
HIDDEN int device_lookup_entry(struct device *dev, const void *host_addr,
                               struct device_entry *out);
/* `declare target indirect`: the device address of host function `host_fn`
 * when it is an indirect function loaded on this device, else host_fn
 * itself (for kernel arguments holding function pointers). The rows are the
 * entries with OMP_DECLARE_TARGET_INDIRECT: clang 19/22's indirect entries
 * (tgt_addr read through the image's 8-byte entry object), and, for images
 * of clang 14-16 (which accept the clause but emit no entry), every global
 * function of the image that has a host function of the same name in the
 * host object that registered it (size 0, name from the image). */
HIDDEN void *device_translate_fptr(struct device *dev, void *host_fn);
/* Unload one library from every device that loaded it (dtors first). */
HIDDEN void devices_unload_lib(struct registered_lib *lib);
/* Release all devices and free their state (unit tests). */
HIDDEN void devices_release_all(void);
/* At program exit: deinit_device each device and mark it failed ("the
 * program is exiting"), but free nothing: other host threads may still be
 * inside a construct (exit() on one thread stops the others only when the
 * process ends) and hold pointers to the devices, their locks and tables. */
HIDDEN void devices_release_at_exit(void);
/* One device, for the devices array and unit tests: set up as NEW (0, or -1
 * with report_error_set), and torn down again (frees the entry table, the
 * image records and the mapping table; calls no plugin). */
HIDDEN int device_setup(struct device *dev, int32_t id, struct plugin *plugin,
                        int32_t rtl_id);
HIDDEN void device_teardown(struct device *dev);
/* Unload one library from one device: dtor kernels, global mappings,
 * entries, unload_binary. Does nothing when the device never loaded it. */
HIDDEN void device_unload_lib(struct device *dev, struct registered_lib *lib);
/* deinit_device if the device was initialised, then device_teardown. */
HIDDEN void device_release(struct device *dev);
/* For unit tests: set up `dev` as a ready device backed by `plugin`. */
/* The plugin's explanation of its last failure (get_last_error), as
 * "; plugin x says: ..." in buf ("" when it offers none), or appended to the
 * current cause (report_error_set). */
HIDDEN void device_plugin_cause(struct device *dev, char *buf, size_t len);
HIDDEN void device_add_plugin_cause(struct device *dev);
#ifdef SIMTARGET_TEST_HOOKS
HIDDEN void device_init_for_test(struct device *dev, struct plugin *plugin,
                                 int32_t rtl_id);
#endif

/* Plugin wrappers (src/device_ops.c). Each returns the plugin's result; on failure it records a
 * cause with report_error_set() naming the operation, the size and address. */
HIDDEN void *device_alloc(struct device *dev, int64_t size, void *hst_ptr,
                          int32_t kind);
HIDDEN int device_delete(struct device *dev, void *tgt_ptr);
HIDDEN int device_submit(struct device *dev, void *tgt_ptr, void *hst_ptr,
                         int64_t size);
HIDDEN int device_retrieve(struct device *dev, void *hst_ptr, void *tgt_ptr,
                           int64_t size);
/* The same copies, naming the mapped variable in the INFO 0x20 trace. */
HIDDEN int device_submit_named(struct device *dev, void *tgt_ptr,
                               void *hst_ptr, int64_t size, const char *name);
HIDDEN int device_retrieve_named(struct device *dev, void *hst_ptr,
                                 void *tgt_ptr, int64_t size,
                                 const char *name);
/* A bug-finding check's read of device memory into a buffer of its own:
 * not traced, profiled or told to OMPT tools (the program did not ask for
 * it). Returns the plugin's result; no cause is recorded. */
HIDDEN int device_peek(struct device *dev, void *buf, void *tgt_ptr,
                       int64_t size);
/* Write a device pointer (the 8 bytes at `value`, a runtime buffer) into
 * the device copy of the user's host pointer at `hst_ptr_addr`: the trace
 * shows the user's address, not the buffer. */
HIDDEN int device_submit_pointer(struct device *dev, void *tgt_ptr,
                                 void *value, const void *hst_ptr_addr,
                                 const char *name);
/* A copy between host and device: its direction, and whether it runs now
 * (device_ops.c) or goes on an asynchronous queue (async.c). */
enum device_copy {
  COPY_TO_DEVICE,
  COPY_FROM_DEVICE,
  QUEUE_TO_DEVICE,
  QUEUE_FROM_DEVICE
};
/* Tells the plugin which host variable the device memory [tgt_ptr,
 * tgt_ptr + size) holds (`text`: its name, map type and construct), when
 * the plugin has name_range and uses it. A refusal is said once on stderr
 * (a check's report then names no variable); nothing fails. */
HIDDEN void device_name_range(struct device *dev, void *tgt_ptr, int64_t size,
                              const char *text);
/* The INFO 0x20 trace line of a copy (LLVM's text; `name` may be NULL). */
HIDDEN void device_trace_copy(enum device_copy kind, void *hst_ptr,
                              void *tgt_ptr, int64_t size, const char *name);
/* The cause of a failed copy (report_error_set, plus the plugin's own). */
HIDDEN void device_copy_failed(struct device *dev, enum device_copy kind,
                               void *hst_ptr, void *tgt_ptr, int64_t size);
/* OMPT device tracing: have the plugin store the start and end of this
 * thread's next kernel or queued copy on dev in times[0..1] (time_next_op,
 * where the plugin has it; left 0, 0 otherwise); NULL disarms it. */
HIDDEN void device_time_next_op(struct device *dev, uint64_t *times);
/* kargs_version: the launch's KernelArgs version (0: an older entry
 * point); from TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST on, the plugin's
 * run_target_kernel calls the kernel when it has one (a host-CPU plugin,
 * which calls it as the image and the version say). */
HIDDEN int device_run_kernel(struct device *dev,
                             const struct device_entry *kernel, void **args,
                             ptrdiff_t *offsets, int32_t num_args,
                             int32_t num_teams, int32_t thread_limit,
                             uint64_t tripcount, uint32_t kargs_version);

#endif
