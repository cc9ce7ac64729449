/*
 * interface.c - the __tgt_* entry points compilers call. Each one checks its
 * arguments, resolves the device, calls the engine (maps.c, launch.c) and,
 * when the construct fails, hands the recorded cause to the failure policy
 * (report_offload_failure), the only place that may end the program.
 *
 * Thread safety: no state here; see registry.c, device.c and launch.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "faults.h"
#include "launch.h"
#include "maps.h"
#include "plugins.h"
#include "registry.h"
#include "report.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- registration ------------------------------------------------------ */

/* Say once that translation units disagree on `requires`. */
static void report_requires_conflict(void) {
  static int reported;
  const char *conflict = registry_requires_conflict();
  if (conflict && conflict[0] && !__atomic_exchange_n(&reported, 1,
                                                      __ATOMIC_RELAXED))
    report_error("%s", conflict);
}

EXPORT void __tgt_register_lib(__tgt_bin_desc *desc) {
  report_init();
  int rc = registry_add(desc);
  report_requires_conflict();
  if (rc != 0) {
    /* Constructs of this library will fail later with "no device code";
     * say now why its images were refused. */
    report_error("cannot register offload descriptor %p: %s", (void *)desc,
                 report_error_get());
    plugins_add_rejection("descriptor %p: %s", (void *)desc,
                          report_error_get());
    report_error_clear();
  }
}

EXPORT void __tgt_unregister_lib(__tgt_bin_desc *desc) {
  struct registered_lib *lib = registry_remove(desc);
  if (!lib)
    return;
  devices_unload_lib(lib);
  registry_free(lib);
}

EXPORT void __tgt_register_requires(int64_t flags) {
  report_init();
  registry_add_requires(flags);
  report_requires_conflict();
}

EXPORT void __tgt_init_all_rtls(void) { plugins_load_all(); }

EXPORT int __tgt_get_num_devices(void) {
  if (report_policy() == POLICY_DISABLED)
    return 0;
  return devices_count();
}

EXPORT void __tgt_set_info_flag(uint32_t flags) {
  report_set_info_flags(flags);
  for (int i = 0; i < plugins_count(); i++) {
    struct plugin *p = plugins_get(i);
    if (p && p->ops.set_info_flag &&
        RTL_CALL(INTERFACE_SET_INFO_FLAG, &p->ops, set_info_flag)(flags) != 0)
      report_error("__tgt_set_info_flag(0x%x): plugin %s refused the flags "
                   "(__tgt_rtl_set_info_flag)",
                   flags, p->name);
  }
}

/* ---- data constructs ----------------------------------------------------- */

enum data_op { DATA_BEGIN, DATA_END, DATA_UPDATE };

static const char *const data_op_names[] = {
    [DATA_BEGIN] = "target data begin / target enter data",
    [DATA_END] = "target data end / target exit data",
    [DATA_UPDATE] = "target update",
};

static int data_op_on_device(struct device *dev, enum data_op op,
                             const struct map_args *a) {
  int rc;
  switch (op) {
  case DATA_BEGIN: rc = maps_data_begin(dev, a); break;
  case DATA_END: rc = maps_data_end(dev, a); break;
  default: rc = maps_data_update(dev, a); break;
  }
  if (rc == 0)
    __atomic_store_n(&dev->used, true, __ATOMIC_RELAXED);
  return rc;
}

static void data_construct(ident_t *loc, int64_t device_id, enum data_op op,
                           int32_t num, void **base, void **begin,
                           int64_t *sizes, int64_t *types, void **names,
                           void **mappers) {
  const char *what = data_op_names[op];
  struct map_args a = {num, base, begin, sizes, types, names, mappers};
  struct device *dev = NULL;
  report_init();
  report_error_clear();
  if (report_policy() == POLICY_DISABLED)
    return;
  if (maps_check_args(&a, what) != 0)
    goto fail;
  launch_print_args(what, loc, &a);
  if (device_id == OFFLOAD_DEVICE_ALL_PENDING ||
      device_id == OFFLOAD_DEVICE_ALL_USED) {
    /* seed 000: every device (-2), or every device used so far (-3) */
    for (int d = 0; d < devices_count(); d++) {
      struct device *each = device_get(d);
      if (!each || (device_id == OFFLOAD_DEVICE_ALL_USED &&
                    !__atomic_load_n(&each->used, __ATOMIC_RELAXED)))
        continue;
      if (device_ready(each) != 0 || data_op_on_device(each, op, &a) != 0) {
        dev = each;
        goto fail;
      }
    }
    return;
  }
  switch (target_resolve(device_id, &dev)) {
  case TARGET_ON_HOST: return;
  case TARGET_FAILED: goto fail;
  case TARGET_ON_DEVICE: break;
  }
  if (data_op_on_device(dev, op, &a) == 0)
    return;
fail:
  report_offload_failure(loc, what, dev);
}

EXPORT void __tgt_target_data_begin_mapper(ident_t *loc, int64_t device_id,
                                           int32_t arg_num, void **args_base,
                                           void **args, int64_t *arg_sizes,
                                           int64_t *arg_types,
                                           void **arg_names,
                                           void **arg_mappers) {
  data_construct(loc, device_id, DATA_BEGIN, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers);
}

EXPORT void __tgt_target_data_end_mapper(ident_t *loc, int64_t device_id,
                                         int32_t arg_num, void **args_base,
                                         void **args, int64_t *arg_sizes,
                                         int64_t *arg_types, void **arg_names,
                                         void **arg_mappers) {
  data_construct(loc, device_id, DATA_END, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers);
}

EXPORT void __tgt_target_data_update_mapper(ident_t *loc, int64_t device_id,
                                            int32_t arg_num, void **args_base,
                                            void **args, int64_t *arg_sizes,
                                            int64_t *arg_types,
                                            void **arg_names,
                                            void **arg_mappers) {
  data_construct(loc, device_id, DATA_UPDATE, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers);
}

/* The nowait forms run synchronously: clang already wraps them in a target
 * task, and the dependence arguments are garbage for clang 13-16 callers.
 *
 * Those callers pass 9 arguments to a 13-parameter function: only 3 of our
 * 7 stack parameters exist. A sibling call from here would write its own
 * stack arguments over the missing ones, i.e. over the caller's frame (seen:
 * a return to address 0 in a libomp helper thread). KEEP_FRAME() after the
 * call makes it an ordinary call, so nothing beyond the caller's arguments
 * is ever written. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")
EXPORT void __tgt_target_data_begin_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  data_construct(loc, device_id, DATA_BEGIN, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers);
  KEEP_FRAME();
}

EXPORT void __tgt_target_data_end_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  data_construct(loc, device_id, DATA_END, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers);
  KEEP_FRAME();
}

EXPORT void __tgt_target_data_update_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  data_construct(loc, device_id, DATA_UPDATE, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers);
  KEEP_FRAME();
}

/* The seed's synchronous interface (no source location, no mappers). */
EXPORT void __tgt_target_data_begin(int64_t device_id, int32_t arg_num,
                                    void **args_base, void **args,
                                    int64_t *arg_sizes, int64_t *arg_types) {
  data_construct(NULL, device_id, DATA_BEGIN, arg_num, args_base, args,
                 arg_sizes, arg_types, NULL, NULL);
}

EXPORT void __tgt_target_data_end(int64_t device_id, int32_t arg_num,
                                  void **args_base, void **args,
                                  int64_t *arg_sizes, int64_t *arg_types) {
  data_construct(NULL, device_id, DATA_END, arg_num, args_base, args,
                 arg_sizes, arg_types, NULL, NULL);
}

EXPORT void __tgt_target_data_update(int64_t device_id, int32_t arg_num,
                                     void **args_base, void **args,
                                     int64_t *arg_sizes, int64_t *arg_types) {
  data_construct(NULL, device_id, DATA_UPDATE, arg_num, args_base, args,
                 arg_sizes, arg_types, NULL, NULL);
}

/* ---- target regions ------------------------------------------------------ */

/* Returns 0 when the region ran on a device, non-zero when the compiler's
 * host version must run (clang-abi.md 2: `icmp ne i32 %r, 0`). */
static int32_t target_construct(ident_t *loc, int64_t device_id,
                                struct launch_request *req) {
  const char *what = "target";
  struct device *dev = NULL;
  report_init();
  report_error_clear();
  if (report_policy() == POLICY_DISABLED)
    return OFFLOAD_FAIL;
  if (maps_check_args(&req->args, what) != 0)
    goto fail;
  launch_print_args("Entering OpenMP kernel", loc, &req->args);
  if (device_id == OFFLOAD_DEVICE_ALL_PENDING ||
      device_id == OFFLOAD_DEVICE_ALL_USED) {
    for (int d = 0; d < devices_count(); d++) {
      struct device *each = device_get(d);
      if (!each || (device_id == OFFLOAD_DEVICE_ALL_USED &&
                    !__atomic_load_n(&each->used, __ATOMIC_RELAXED)))
        continue;
      if (device_ready(each) != 0 || launch_region(each, req) != 0) {
        dev = each;
        goto fail;
      }
    }
    return OFFLOAD_SUCCESS;
  }
  switch (target_resolve(device_id, &dev)) {
  case TARGET_ON_HOST: return OFFLOAD_FAIL;
  case TARGET_FAILED: goto fail;
  case TARGET_ON_DEVICE: break;
  }
  if (launch_region(dev, req) == 0)
    return OFFLOAD_SUCCESS;
fail:
  report_offload_failure(loc, what, dev);
  return OFFLOAD_FAIL;
}

static int32_t target_teams_common(ident_t *loc, int64_t device_id,
                                   void *host_ptr, int32_t arg_num,
                                   void **args_base, void **args,
                                   int64_t *arg_sizes, int64_t *arg_types,
                                   void **arg_names, void **arg_mappers,
                                   int32_t num_teams, int32_t thread_limit) {
  struct launch_request req = {
      .host_ptr = host_ptr,
      .args = {arg_num, args_base, args, arg_sizes, arg_types, arg_names,
               arg_mappers},
      .num_teams = num_teams,
      .thread_limit = thread_limit,
      .tripcount = launch_pop_tripcount(device_id),
      .dyn_ptr = false,
  };
  return target_construct(loc, device_id, &req);
}

EXPORT int32_t __tgt_target(int64_t device_id, void *host_ptr,
                            int32_t arg_num, void **args_base, void **args,
                            int64_t *arg_sizes, int64_t *arg_types) {
  return target_teams_common(NULL, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, NULL, NULL, -1, 0);
}

EXPORT int32_t __tgt_target_teams(int64_t device_id, void *host_ptr,
                                  int32_t arg_num, void **args_base,
                                  void **args, int64_t *arg_sizes,
                                  int64_t *arg_types, int32_t num_teams,
                                  int32_t thread_limit) {
  return target_teams_common(NULL, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, NULL, NULL,
                             num_teams, thread_limit);
}

EXPORT int32_t __tgt_target_mapper(ident_t *loc, int64_t device_id,
                                   void *host_ptr, int32_t arg_num,
                                   void **args_base, void **args,
                                   int64_t *arg_sizes, int64_t *arg_types,
                                   void **arg_names, void **arg_mappers) {
  return target_teams_common(loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, -1, 0);
}

EXPORT int32_t __tgt_target_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    void **arg_names, void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  return target_teams_common(loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, -1, 0);
}

EXPORT int32_t __tgt_target_teams_mapper(ident_t *loc, int64_t device_id,
                                         void *host_ptr, int32_t arg_num,
                                         void **args_base, void **args,
                                         int64_t *arg_sizes,
                                         int64_t *arg_types, void **arg_names,
                                         void **arg_mappers, int32_t num_teams,
                                         int32_t thread_limit) {
  return target_teams_common(loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, num_teams, thread_limit);
}

EXPORT int32_t __tgt_target_teams_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    void **arg_names, void **arg_mappers, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  return target_teams_common(loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, num_teams, thread_limit);
}

EXPORT void __kmpc_push_target_tripcount_mapper(ident_t *loc,
                                                int64_t device_id,
                                                uint64_t loop_tripcount) {
  (void)loc;
  launch_push_tripcount(device_id, loop_tripcount);
}

EXPORT void __kmpc_push_target_tripcount(int64_t device_id,
                                         uint64_t loop_tripcount) {
  launch_push_tripcount(device_id, loop_tripcount);
}

/* clang 15+: KernelArgs version 1 (15), 2 (16), 3 (19, 22). */
EXPORT int32_t __tgt_target_kernel(ident_t *loc, int64_t device_id,
                                   int32_t num_teams, int32_t thread_limit,
                                   void *host_ptr,
                                   __tgt_kernel_arguments *kargs) {
  report_init();
  report_error_clear();
  if (!kargs) {
    report_error_set("__tgt_target_kernel: the kernel-arguments pointer is "
                     "NULL");
    report_offload_failure(loc, "target", NULL);
    return OFFLOAD_FAIL;
  }
  if (kargs->Version < 1 || kargs->Version > 3) {
    report_error_set("__tgt_target_kernel: kernel-arguments version %u is "
                     "not supported (simtarget reads versions 1 to 3, as "
                     "emitted by clang 15 to 22)",
                     kargs->Version);
    report_offload_failure(loc, "target", NULL);
    return OFFLOAD_FAIL;
  }
  if (kargs->NumArgs > INT32_MAX) {
    report_error_set("__tgt_target_kernel: NumArgs %u is out of range",
                     kargs->NumArgs);
    report_offload_failure(loc, "target", NULL);
    return OFFLOAD_FAIL;
  }
  struct launch_request req = {
      .host_ptr = host_ptr,
      .args = {(int32_t)kargs->NumArgs, kargs->ArgBasePtrs, kargs->ArgPtrs,
               kargs->ArgSizes, kargs->ArgTypes, kargs->ArgNames,
               kargs->ArgMappers},
      .num_teams = num_teams,
      .thread_limit = thread_limit,
      .tripcount = kargs->Tripcount,
      .dyn_ptr = kargs->Version >= TGT_KERNEL_ARGS_MIN_VERSION_WITH_DYN_PTR,
  };
  /* Flags bit 0 (nowait) runs synchronously for now: clang wraps nowait
   * regions in a target task already. */
  return target_construct(loc, device_id, &req);
}

EXPORT int32_t __tgt_target_kernel_nowait(
    ident_t *loc, int64_t device_id, int32_t num_teams, int32_t thread_limit,
    void *host_ptr, __tgt_kernel_arguments *args, int32_t dep_num,
    void *dep_list, int32_t noalias_dep_num, void *noalias_dep_list) {
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  return __tgt_target_kernel(loc, device_id, num_teams, thread_limit,
                             host_ptr, args);
}

/* ---- library lifetime ---------------------------------------------------- */

static int dump_one_table(struct device *dev) {
  pthread_mutex_lock(&dev->map.lock);
  char title[64];
  snprintf(title, sizeof title, "mapping table of device %d at exit",
           dev->id);
  mapping_dump(&dev->map, stderr, title);
  pthread_mutex_unlock(&dev->map.lock);
  return 0;
}

__attribute__((destructor)) static void interface_fini(void) {
  if (REPORT_INFO_ON(INFO_DUMP_TABLE)) {
    int n = devices_count();
    for (int d = 0; d < n; d++) {
      struct device *dev = device_get(d);
      if (dev && dev->state == DEVICE_READY)
        dump_one_table(dev);
    }
  }
  devices_release_all();
  plugins_unload_all();
}
