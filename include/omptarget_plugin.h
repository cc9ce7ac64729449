/*
 * omptarget_plugin.h - the __tgt_rtl_* interface every simtarget plugin
 * exports, as ONE table.
 *
 * TGT_RTL_INTERFACE(X) lists every function once. The loader (dlsym and the
 * compliance check), the fault injector and the call tracer are all generated
 * from it, so they cannot disagree. Each row is
 *
 *   X(required, return_type, name, (parameters), (arguments), failure_value)
 *
 * `required` is 1 when a plugin lacking the function is rejected, 0 when
 * libomptarget has a fallback (documented next to the row). `failure_value`
 * is what the function returns on failure; the fault injector returns it.
 *
 * Versioning: a plugin must export __tgt_rtl_abi_version() returning
 * SIMTARGET_PLUGIN_ABI_VERSION. LLVM has no such handshake and its
 * signatures drifted between releases (data_delete gained a kind, 17 replaced
 * run_* with launch_kernel); a plugin built against another revision of this
 * header is refused with a message instead of being called with the wrong
 * arguments.
 *
 * Plugins are found by name: libomptarget.rtl.<name>.so beside
 * libomptarget.so (see src/plugins.c).
 */
#ifndef SIMTARGET_OMPTARGET_PLUGIN_H
#define SIMTARGET_OMPTARGET_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "omptarget.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIMTARGET_PLUGIN_ABI_VERSION 1

/* Kinds for data_alloc (LLVM's TargetAllocTy). */
enum tgt_alloc_kind {
  TARGET_ALLOC_DEVICE = 0,
  TARGET_ALLOC_HOST = 1,
  TARGET_ALLOC_SHARED = 2,
  TARGET_ALLOC_DEFAULT = 3,
};

/* LIBOMPTARGET_INFO bits (LLVM's meanings), shared by libomptarget and the
 * plugins (set_info_flag hands them over) so both test the same names. */
enum tgt_info_bits {
  INFO_KERNEL_ARGS = 0x01,      /* arguments of each kernel launch */
  INFO_MAPPING_EXISTS = 0x02,   /* a map found its object already present */
  INFO_DUMP_TABLE = 0x04,       /* the mapping table at exit and on failure */
  INFO_MAPPING_CHANGED = 0x08,  /* entries created and removed */
  INFO_PLUGIN_KERNEL = 0x10,    /* plugin-specific kernel information */
  INFO_DATA_TRANSFER = 0x20,    /* every copy to or from the device */
  INFO_EMPTY_MAPPING = 0x40,    /* zero-size or unmapped pointers kept as is */
  INFO_REFCOUNT = 0x80,         /* simtarget: every reference-count change */
};

/* One row of the declare-target-indirect table (seed 003), sorted by host. */
typedef struct __tgt_fptr_map {
  uint64_t host_ptr;
  uint64_t device_ptr;
} __tgt_fptr_map;

/* A plugin's asynchronous queue, opaque to libomptarget (LLVM's
 * __tgt_async_info). `queue` is NULL before the first asynchronous call on
 * it; the plugin creates the queue then, and releases it (setting `queue`
 * back to NULL) when synchronize or query_async finds every operation
 * finished, or failed. Operations on one queue run in submission order;
 * operations on different queues may overlap. One queue is used by one
 * host thread at a time. */
typedef struct __tgt_async_info {
  void *queue;
} __tgt_async_info;

/* What a plugin reports about its last failure on a device (optional). */
typedef struct __tgt_rtl_error {
  char message[512];   /* the cause, in words; "" when unknown       */
  uint64_t fault_addr; /* a faulting device-side address, or 0       */
  int32_t fault_kind;  /* 0 none, 1 read, 2 write, 3 execute          */
  int32_t device_lost; /* 1 when the device died and will restart     */
} __tgt_rtl_error;

#define TGT_RTL_INTERFACE(X)                                                   \
  /* ---- required ---- */                                                    \
  X(1, int32_t, abi_version, (void), (), 0)                                    \
  X(1, int32_t, number_of_devices, (void), (), 0)                              \
  /* 1 when the image can run on this plugin's devices, else 0. */            \
  X(1, int32_t, is_valid_binary, (__tgt_device_image * image), (image), 0)     \
  X(1, int32_t, init_device, (int32_t device_id), (device_id), OFFLOAD_FAIL)   \
  /* Load an image; the table has one entry per host entry, same order. */    \
  X(1, __tgt_target_table *, load_binary,                                      \
    (int32_t device_id, __tgt_device_image * image), (device_id, image), NULL) \
  /* hst_ptr: the host object a mapping mirrors, which a plugin that honours \
   * unified_shared_memory may hand back as the device address; NULL for     \
   * memory that must be distinct (map `close`, private copies, routines). */ \
  X(1, void *, data_alloc,                                                     \
    (int32_t device_id, int64_t size, void *hst_ptr, int32_t kind),            \
    (device_id, size, hst_ptr, kind), NULL)                                    \
  X(1, int32_t, data_submit,                                                   \
    (int32_t device_id, void *tgt_ptr, void *hst_ptr, int64_t size),           \
    (device_id, tgt_ptr, hst_ptr, size), OFFLOAD_FAIL)                         \
  X(1, int32_t, data_retrieve,                                                 \
    (int32_t device_id, void *hst_ptr, void *tgt_ptr, int64_t size),           \
    (device_id, hst_ptr, tgt_ptr, size), OFFLOAD_FAIL)                         \
  X(1, int32_t, data_delete, (int32_t device_id, void *tgt_ptr),               \
    (device_id, tgt_ptr), OFFLOAD_FAIL)                                        \
  /* tgt_args[i] + tgt_offsets[i] is kernel parameter i (64-bit each).   */   \
  X(1, int32_t, run_target_team_region,                                        \
    (int32_t device_id, void *tgt_entry_ptr, void **tgt_args,                  \
     ptrdiff_t *tgt_offsets, int32_t arg_num, int32_t num_teams,               \
     int32_t thread_limit, uint64_t loop_tripcount),                           \
    (device_id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num, num_teams,      \
     thread_limit, loop_tripcount),                                            \
    OFFLOAD_FAIL)                                                              \
  /* ---- optional (fallback when absent) ---- */                             \
  /* absent: nothing to initialise */                                         \
  X(0, int32_t, init_plugin, (void), (), OFFLOAD_FAIL)                         \
  /* absent: nothing to release */                                            \
  X(0, int32_t, deinit_plugin, (void), (), OFFLOAD_FAIL)                       \
  /* absent: the device is released with the plugin */                        \
  X(0, int32_t, deinit_device, (int32_t device_id), (device_id), OFFLOAD_FAIL) \
  /* absent: requires flags are accepted as they are */                       \
  X(0, int64_t, init_requires, (int64_t requires_flags), (requires_flags),     \
    OFFLOAD_FAIL)                                                              \
  /* absent: images stay loaded until the device is released */               \
  X(0, int32_t, unload_binary, (int32_t device_id, __tgt_device_image * image),\
    (device_id, image), OFFLOAD_FAIL)                                          \
  /* absent: run_target_team_region(..., 1, 1, 0) */                          \
  X(0, int32_t, run_target_region,                                             \
    (int32_t device_id, void *tgt_entry_ptr, void **tgt_args,                  \
     ptrdiff_t *tgt_offsets, int32_t arg_num),                                 \
    (device_id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num), OFFLOAD_FAIL) \
  /* absent: never exchangeable; copies go through a host buffer */           \
  X(0, int32_t, is_data_exchangable, (int32_t src_id, int32_t dst_id),         \
    (src_id, dst_id), 0)                                                       \
  X(0, int32_t, data_exchange,                                                 \
    (int32_t src_id, void *src_ptr, int32_t dst_id, void *dst_ptr,             \
     int64_t size),                                                            \
    (src_id, src_ptr, dst_id, dst_ptr, size), OFFLOAD_FAIL)                    \
  /* absent: indirect calls keep host addresses (seed 003) */                 \
  X(0, int32_t, set_function_ptr_map,                                          \
    (int32_t device_id, uint64_t size, const __tgt_fptr_map *table),           \
    (device_id, size, table), OFFLOAD_FAIL)                                    \
  /* ---- asynchronous queues (optional as a group) ----                  */ \
  /* absent: data_submit, the copy is complete when the call returns */       \
  X(0, int32_t, data_submit_async,                                             \
    (int32_t device_id, void *tgt_ptr, void *hst_ptr, int64_t size,            \
     __tgt_async_info * async_info),                                           \
    (device_id, tgt_ptr, hst_ptr, size, async_info), OFFLOAD_FAIL)             \
  /* absent: data_retrieve, complete when the call returns */                 \
  X(0, int32_t, data_retrieve_async,                                           \
    (int32_t device_id, void *hst_ptr, void *tgt_ptr, int64_t size,            \
     __tgt_async_info * async_info),                                           \
    (device_id, hst_ptr, tgt_ptr, size, async_info), OFFLOAD_FAIL)             \
  /* absent: run_target_team_region, complete when the call returns */        \
  X(0, int32_t, run_target_team_region_async,                                  \
    (int32_t device_id, void *tgt_entry_ptr, void **tgt_args,                  \
     ptrdiff_t *tgt_offsets, int32_t arg_num, int32_t num_teams,               \
     int32_t thread_limit, uint64_t loop_tripcount,                            \
     __tgt_async_info * async_info),                                           \
    (device_id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num, num_teams,      \
     thread_limit, loop_tripcount, async_info),                                \
    OFFLOAD_FAIL)                                                              \
  /* Wait for every operation of the queue, then release it. OFFLOAD_FAIL   */ \
  /* when one failed (its cause through get_last_error).                    */ \
  /* absent: nothing to wait for (the fallbacks above completed at once) */   \
  X(0, int32_t, synchronize, (int32_t device_id, __tgt_async_info * async_info),\
    (device_id, async_info), OFFLOAD_FAIL)                                     \
  /* Seed 004's non-blocking synchronise: never waits; *is_completed = 1    */ \
  /* (and the queue released) once every operation finished.                */ \
  /* absent: synchronize, then *is_completed = 1 */                           \
  X(0, int32_t, query_async,                                                   \
    (int32_t device_id, __tgt_async_info * async_info, int32_t * is_completed),\
    (device_id, async_info, is_completed), OFFLOAD_FAIL)                       \
  /* Program exit: from now on no queued operation that has not started     */ \
  /* runs, in any queue of the plugin (the host objects of its copies may   */ \
  /* be gone: main's ended stack frame); a kernel already running runs on,  */ \
  /* and synchronize/query_async complete its queue when it ends.           */ \
  /* absent: the queues run as queued (exit waits for them, up to 2 s)      */ \
  X(0, int32_t, abandon_queues, (void), (), OFFLOAD_FAIL)                      \
  /* absent: failures are reported without a plugin-specific cause */         \
  X(0, int32_t, get_last_error, (int32_t device_id, __tgt_rtl_error * err),    \
    (device_id, err), OFFLOAD_FAIL)                                            \
  /* absent: the plugin prints nothing of its own */                          \
  X(0, int32_t, set_info_flag, (uint32_t flags), (flags), OFFLOAD_FAIL)        \
  /* absent: run_target_team_region(_async), parameters one by one (what a \
   * GPU plugin does for every KernelArgs version). A kernel launched by     \
   * __tgt_target_kernel with KernelArgs version kargs_version (0: an older  \
   * entry point); async_info NULL: complete when the call returns. A plugin \
   * of host-CPU devices calls the kernel as its image and kargs_version say \
   * (TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST in omptarget.h) and refuses an    \
   * image whose compiler disagrees with the version. */                     \
  X(0, int32_t, run_target_kernel,                                             \
    (int32_t device_id, void *tgt_entry_ptr, void **tgt_args,                  \
     ptrdiff_t *tgt_offsets, int32_t arg_num, int32_t num_teams,               \
     int32_t thread_limit, uint64_t loop_tripcount, uint32_t kargs_version,    \
     __tgt_async_info *async_info),                                            \
    (device_id, tgt_entry_ptr, tgt_args, tgt_offsets, arg_num, num_teams,      \
     thread_limit, loop_tripcount, kargs_version, async_info),                 \
    OFFLOAD_FAIL)                                                              \
  /* absent: "no details" is printed */                                       \
  X(0, int32_t, print_device_info, (int32_t device_id), (device_id),           \
    OFFLOAD_FAIL)                                                              \
  /* simtarget's own, absent: device memory has no names. Gives the device  \
   * allocation at tgt_ptr (size bytes) the host variable it holds: text is \
   * its name, a newline, then how and where it was mapped; for a checking  \
   * tool on the device side (simdevice under memcheck).                    \
   * OFFLOAD_SUCCESS; 1: names are not used (not asked again for this       \
   * device); OFFLOAD_FAIL */                                                 \
  X(0, int32_t, name_range,                                                    \
    (int32_t device_id, void *tgt_ptr, int64_t size, const char *text),        \
    (device_id, tgt_ptr, size, text), OFFLOAD_FAIL)                            \
  /* OMPT device tracing: the next kernel this host thread launches on      */ \
  /* device_id (synchronous or queued), or the next copy it queues there    */ \
  /* (data_submit_async, data_retrieve_async), stores the CLOCK_MONOTONIC   */ \
  /* ns of its start and end where the work is done in times[0], times[1]   */ \
  /* once it ended: before the call returns, or before synchronize /        */ \
  /* query_async report its queue complete. Every launch and queued copy    */ \
  /* disarms it, and times NULL does (work that never reached the plugin);  */ \
  /* times must live until then.                                            */ \
  /* absent: trace records carry the host's times around the plugin call   */ \
  X(0, int32_t, time_next_op, (int32_t device_id, uint64_t * times),           \
    (device_id, times), OFFLOAD_FAIL)

/* Prototypes, generated from the table. */
#define TGT_RTL_DECLARE(req, ret, name, params, args, fail)                    \
  ret __tgt_rtl_##name params;
TGT_RTL_INTERFACE(TGT_RTL_DECLARE)
#undef TGT_RTL_DECLARE

#ifdef __cplusplus
}
#endif
#endif /* SIMTARGET_OMPTARGET_PLUGIN_H */
