/*
 * fault_sites.h - every place libomptarget calls a plugin, with a stable id.
 *
 * One row per call site: X(number, ID, function, where). The fault injector
 * (faults.h) counts and fails calls by site, and SIMTARGET_FAULTS names a
 * site by its number ("site=4") or ID ("site=DEVOPS_SUBMIT"). `function` is
 * the TGT_RTL_INTERFACE row the site calls; RTL_CALL checks at compile time
 * that a call site uses the function its row says.
 *
 * NEVER REUSE A NUMBER: a removed site leaves a hole, a new one takes the
 * next free number, so fault specs and sweep logs stay comparable between
 * revisions. Numbers stay below FAULT_SITE_LIMIT.
 *
 * No locks: a constant table.
 */
#ifndef SIMTARGET_FAULT_SITES_H
#define SIMTARGET_FAULT_SITES_H

#define FAULT_SITE_LIMIT 128

#define FAULT_SITES(X)                                                         \
  /* src/device_ops.c: the data and launch wrappers */                        \
  X(1, DEVOPS_LAST_ERROR, get_last_error, "src/device_ops.c device_plugin_cause")\
  X(2, DEVOPS_ALLOC, data_alloc, "src/device_ops.c device_alloc")              \
  X(3, DEVOPS_DELETE, data_delete, "src/device_ops.c device_delete")           \
  X(4, DEVOPS_SUBMIT, data_submit, "src/device_ops.c device_submit_named")     \
  X(5, DEVOPS_RETRIEVE, data_retrieve,                                         \
    "src/device_ops.c device_retrieve_named")                                  \
  X(6, DEVOPS_LAUNCH, run_target_team_region,                                  \
    "src/device_ops.c device_run_kernel")                                      \
  /* src/device.c: lifecycle and images */                                    \
  /* 7: retired (device.c's cause now comes through site 1) */              \
  X(8, DEVICE_INIT_REQUIRES, init_requires, "src/device.c device_initialise")  \
  X(9, DEVICE_INIT_DEVICE, init_device, "src/device.c device_initialise")      \
  X(10, DEVICE_IS_VALID_BINARY, is_valid_binary,                               \
    "src/device.c device_load_lib")                                            \
  X(11, DEVICE_LOAD_BINARY, load_binary, "src/device.c device_load_lib")       \
  X(12, DEVICE_UNLOAD_BAD_TABLE, unload_binary,                                \
    "src/device.c device_load_lib (table of the wrong size)")                  \
  X(13, DEVICE_UNLOAD_NO_MEMORY, unload_binary,                                \
    "src/device.c device_load_lib (out of memory)")                            \
  X(14, DEVICE_SET_FPTR_MAP, set_function_ptr_map,                             \
    "src/device.c publish_indirect_table")                                     \
  X(15, DEVICE_UNLOAD_LIB, unload_binary, "src/device.c device_unload_lib")    \
  X(16, DEVICE_DEINIT_DEVICE, deinit_device, "src/device.c device_release")    \
  /* src/api.c: omp_target_memcpy between devices */                          \
  X(17, API_IS_DATA_EXCHANGABLE, is_data_exchangable, "src/api.c api_copy")    \
  X(18, API_DATA_EXCHANGE, data_exchange, "src/api.c api_copy")                \
  /* src/interface.c */                                                       \
  X(19, INTERFACE_SET_INFO_FLAG, set_info_flag,                                \
    "src/interface.c __tgt_set_info_flag")                                     \
  /* src/launch.c */                                                          \
  X(20, LAUNCH_FAULT_LAST_ERROR, get_last_error,                               \
    "src/launch.c launch_explain_fault")                                       \
  /* src/plugins.c: loading and unloading plugins */                          \
  X(21, PLUGINS_ABI_VERSION, abi_version,                                      \
    "src/plugins.c plugins_check_compliance")                                  \
  X(22, PLUGINS_INIT_PLUGIN, init_plugin, "src/plugins.c plugins_open")        \
  X(23, PLUGINS_NUMBER_OF_DEVICES, number_of_devices,                          \
    "src/plugins.c plugins_open")                                              \
  X(24, PLUGINS_DEINIT_PLUGIN_OPEN, deinit_plugin,                             \
    "src/plugins.c plugins_open (plugin refused)")                             \
  X(25, PLUGINS_DEINIT_PLUGIN_CLOSE, deinit_plugin,                            \
    "src/plugins.c plugins_close")                                             \
  /* src/async.c: asynchronous queues (nowait, the seed's async interface) */ \
  X(26, ASYNC_SUBMIT, data_submit_async, "src/async.c async_submit")           \
  X(27, ASYNC_RETRIEVE, data_retrieve_async, "src/async.c async_retrieve")     \
  X(28, ASYNC_LAUNCH, run_target_team_region_async, "src/async.c async_launch")\
  X(29, ASYNC_SYNCHRONIZE, synchronize, "src/async.c queue_progress")          \
  X(30, ASYNC_QUERY, query_async, "src/async.c queue_progress")                \
  /* 31: retired (async.c's cause now comes through site 1) */             \
  /* src/plugins.c: why a plugin has no devices */                            \
  X(32, PLUGINS_NO_DEVICES_CAUSE, get_last_error, "src/plugins.c plugins_open") \
  X(33, PLUGINS_SET_INFO_FLAG, set_info_flag, "src/plugins.c plugins_open")  \
  /* src/plugins.c: does an on-demand plugin (simdevice-ppc64le) join */      \
  X(40, PLUGINS_ON_DEMAND_IMAGE, is_valid_binary,                              \
    "src/plugins.c accepts_a_registered_image")                                 \
  /* src/device_ops.c: a check's own read of device memory (SIMTARGET_CHECK) */ \
  X(41, DEVOPS_PEEK, data_retrieve, "src/device_ops.c device_peek")       \
  /* src/device_ops.c: names of device memory for the plugin's checks */      \
  X(42, DEVOPS_NAME_RANGE, name_range, "src/device_ops.c device_name_range")\
  /* KernelArgs version 4+ launches (clang 23): src/device_ops.c, async.c */  \
  X(43, DEVOPS_LAUNCH_KERNEL, run_target_kernel,                               \
    "src/device_ops.c device_run_kernel")                                      \
  X(44, ASYNC_LAUNCH_KERNEL, run_target_kernel, "src/async.c async_launch")   \
  /* src/async.c: regions still running at exit run nothing more */          \
  X(45, ASYNC_ABANDON, abandon_queues,                                         \
    "src/async.c async_report_running_at_exit")
/* Not a site: src/device_ops.c device_time_next_op's time_next_op, called only
 * under OMPT device tracing, whose failure changes nothing the program sees
 * (the record keeps the host's times); the fault corpus runs without a tool. */

#endif
