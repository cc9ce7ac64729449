/*
 * device_ops.c - the one place libomptarget calls a plugin's data and launch
 * functions: every failure gets a cause naming the operation, the size and
 * the addresses (plus the plugin's own explanation when it has one), and
 * LIBOMPTARGET_INFO=0x20 traces every copy. The trace line and the cause of
 * a copy are written here for the queued copies of async.c too.
 *
 * Locking: these wrappers take no lock. The plugin is responsible for its
 * own thread safety; callers hold dev->map.lock around mapping work.
 */
#include "device.h"
#include "ompt.h"
#include "faults.h"
#include "profile.h"
#include "trace.h"

#include <inttypes.h>
#include <string.h>

void device_plugin_cause(struct device *dev, char *buf, size_t len) {
  buf[0] = '\0';
  if (!dev->plugin->ops.get_last_error)
    return;
  __tgt_rtl_error err;
  memset(&err, 0, sizeof err);
  if (RTL_CALL(DEVOPS_LAST_ERROR, &dev->plugin->ops, get_last_error)(
          dev->rtl_id, &err) != 0)
    return;
  err.message[sizeof err.message - 1] = '\0';
  if (err.message[0])
    snprintf(buf, len, "; plugin %s says: %s",
             dev->plugin->name ? dev->plugin->name : "?", err.message);
}

void device_add_plugin_cause(struct device *dev) {
  char cause[600];
  device_plugin_cause(dev, cause, sizeof cause);
  if (cause[0])
    report_error_set("%s", cause + 2); /* report_error_set adds the "; " */
}

#ifdef SIMTARGET_TEST_HOOKS
void device_init_for_test(struct device *dev, struct plugin *plugin,
                          int32_t rtl_id) {
  memset(dev, 0, sizeof *dev);
  dev->plugin = plugin;
  dev->rtl_id = rtl_id;
  dev->id = rtl_id;
  dev->state = DEVICE_READY;
  pthread_mutex_init(&dev->lock, NULL);
  mapping_table_init(&dev->map);
}
#endif

void *device_alloc(struct device *dev, int64_t size, void *hst_ptr,
                   int32_t kind) {
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_op op = ompt_op_make(OMPT_OP_ALLOC, hst_ptr, OMPT_HOST, NULL,
                                   dev->id, (size_t)size);
  ompt_op_begin(&op);
  void *p = RTL_CALL(DEVOPS_ALLOC, &dev->plugin->ops, data_alloc)(dev->rtl_id, size, hst_ptr, kind);
  op.dst = p;
  ompt_op_end(&op);
  if (PROFILE_ON() && p)
    profile_memory(dev->id, true, size, p, t0);
  if (!p) {
    if (hst_ptr)
      report_error_set("device %d: allocating %" PRId64
                       " bytes of device memory for host %p failed",
                       dev->id, size, hst_ptr);
    else
      report_error_set("device %d: allocating %" PRId64
                       " bytes (allocation kind %d) failed",
                       dev->id, size, kind);
    device_add_plugin_cause(dev);
  }
  return p;
}

int device_delete(struct device *dev, void *tgt_ptr) {
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_op op =
      ompt_op_make(OMPT_OP_DELETE, tgt_ptr, dev->id, NULL, OMPT_NO_DEVICE, 0);
  ompt_op_begin(&op);
  int rc = RTL_CALL(DEVOPS_DELETE, &dev->plugin->ops, data_delete)(dev->rtl_id, tgt_ptr);
  ompt_op_end(&op);
  if (PROFILE_ON())
    profile_memory(dev->id, false, 0, tgt_ptr, t0);
  if (rc != OFFLOAD_SUCCESS) {
    report_error_set("device %d: freeing device memory %p failed", dev->id,
                     tgt_ptr);
    device_add_plugin_cause(dev);
  }
  return rc;
}

void device_name_range(struct device *dev, void *tgt_ptr, int64_t size,
                       const char *text) {
  if (dev->plugin->ops.name_range == NULL || atomic_load(&dev->names_unused))
    return;
  int32_t rc = RTL_CALL(DEVOPS_NAME_RANGE, &dev->plugin->ops,
                        name_range)(dev->rtl_id, tgt_ptr, size, text);
  if (rc == 1) {
    atomic_store(&dev->names_unused, true);
  } else if (rc != OFFLOAD_SUCCESS) {
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&said))
      report_error("device %d: the plugin could not name the device copy of "
                   "`%.*s`: its checks' reports may name no variable",
                   dev->id, (int)strcspn(text, "\n"), text);
  }
}

void device_trace_copy(enum device_copy kind, void *hst_ptr, void *tgt_ptr,
                       int64_t size, const char *name) {
  trace_copy(kind == COPY_TO_DEVICE || kind == QUEUE_TO_DEVICE,
             kind == QUEUE_TO_DEVICE || kind == QUEUE_FROM_DEVICE, hst_ptr,
             tgt_ptr, size, name);
  if (!REPORT_INFO_ON(INFO_DATA_TRANSFER))
    return;
  const char *what = kind == QUEUE_TO_DEVICE || kind == QUEUE_FROM_DEVICE
                         ? "Queueing copy"
                         : "Copying data";
  if (!name || !name[0])
    name = "unknown";
  if (kind == COPY_TO_DEVICE || kind == QUEUE_TO_DEVICE)
    report_info(INFO_DATA_TRANSFER,
                "%s from host to device, HstPtr=%p, TgtPtr=%p, Size=%" PRId64
                ", Name=%s",
                what, hst_ptr, tgt_ptr, size, name);
  else
    report_info(INFO_DATA_TRANSFER,
                "%s from device to host, TgtPtr=%p, HstPtr=%p, Size=%" PRId64
                ", Name=%s",
                what, tgt_ptr, hst_ptr, size, name);
}

void device_copy_failed(struct device *dev, enum device_copy kind,
                        void *hst_ptr, void *tgt_ptr, int64_t size) {
  const char *what = kind == QUEUE_TO_DEVICE || kind == QUEUE_FROM_DEVICE
                         ? "queueing a copy of"
                         : "copying";
  if (kind == COPY_TO_DEVICE || kind == QUEUE_TO_DEVICE)
    report_error_set("device %d: %s %" PRId64
                     " bytes from host %p to device %p failed",
                     dev->id, what, size, hst_ptr, tgt_ptr);
  else
    report_error_set("device %d: %s %" PRId64
                     " bytes from device %p to host %p failed",
                     dev->id, what, size, tgt_ptr, hst_ptr);
  device_add_plugin_cause(dev);
}

/* A copy to the device, traced with `shown` as its host address. */
static int submit_shown(struct device *dev, void *tgt_ptr, void *hst_ptr,
                        int64_t size, const char *name, const void *shown) {
  device_trace_copy(COPY_TO_DEVICE, (void *)shown, tgt_ptr, size, name);
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_op op = ompt_op_make(OMPT_OP_TO_DEVICE, hst_ptr, OMPT_HOST,
                                   tgt_ptr, dev->id, (size_t)size);
  ompt_op_begin(&op);
  int rc = RTL_CALL(DEVOPS_SUBMIT, &dev->plugin->ops, data_submit)(
      dev->rtl_id, tgt_ptr, hst_ptr, size);
  ompt_op_end(&op);
  if (PROFILE_ON())
    profile_copy(dev->id, -1, true, size, name, t0);
  if (rc != OFFLOAD_SUCCESS)
    device_copy_failed(dev, COPY_TO_DEVICE, hst_ptr, tgt_ptr, size);
  return rc;
}

int device_submit_named(struct device *dev, void *tgt_ptr, void *hst_ptr,
                        int64_t size, const char *name) {
  return submit_shown(dev, tgt_ptr, hst_ptr, size, name, hst_ptr);
}

int device_submit_pointer(struct device *dev, void *tgt_ptr, void *value,
                          const void *hst_ptr_addr, const char *name) {
  return submit_shown(dev, tgt_ptr, value, (int64_t)sizeof(void *), name,
                      hst_ptr_addr);
}

int device_retrieve_named(struct device *dev, void *hst_ptr, void *tgt_ptr,
                          int64_t size, const char *name) {
  device_trace_copy(COPY_FROM_DEVICE, hst_ptr, tgt_ptr, size, name);
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_op op = ompt_op_make(OMPT_OP_FROM_DEVICE, tgt_ptr, dev->id,
                                   hst_ptr, OMPT_HOST, (size_t)size);
  ompt_op_begin(&op);
  int rc = RTL_CALL(DEVOPS_RETRIEVE, &dev->plugin->ops, data_retrieve)(
      dev->rtl_id, hst_ptr, tgt_ptr, size);
  ompt_op_end(&op);
  if (PROFILE_ON())
    profile_copy(dev->id, -1, false, size, name, t0);
  if (rc != OFFLOAD_SUCCESS)
    device_copy_failed(dev, COPY_FROM_DEVICE, hst_ptr, tgt_ptr, size);
  return rc;
}

int device_peek(struct device *dev, void *buf, void *tgt_ptr, int64_t size) {
  return RTL_CALL(DEVOPS_PEEK, &dev->plugin->ops, data_retrieve)(
      dev->rtl_id, buf, tgt_ptr, size);
}

int device_submit(struct device *dev, void *tgt_ptr, void *hst_ptr,
                  int64_t size) {
  return device_submit_named(dev, tgt_ptr, hst_ptr, size, NULL);
}

int device_retrieve(struct device *dev, void *hst_ptr, void *tgt_ptr,
                    int64_t size) {
  return device_retrieve_named(dev, hst_ptr, tgt_ptr, size, NULL);
}

void device_time_next_op(struct device *dev, uint64_t *times) {
  const struct plugin_ops *ops = &dev->plugin->ops;
  /* Not a fault site (fault_sites.h says why). */
  if (ops->time_next_op &&
      ops->time_next_op(dev->rtl_id, times) != OFFLOAD_SUCCESS && times)
    times[0] = times[1] = 0; /* the record keeps the host's times */
}

int device_run_kernel(struct device *dev, const struct device_entry *kernel,
                      void **args, ptrdiff_t *offsets, int32_t num_args,
                      int32_t num_teams, int32_t thread_limit,
                      uint64_t tripcount, uint32_t kargs_version) {
  uint64_t t0 = PROFILE_ON() ? profile_now() : 0;
  struct ompt_kernel ok = {.teams = ompt_requested_teams(num_teams)};
  ompt_submit_begin(&ok);
  if (ok.traced)
    device_time_next_op(dev, ok.times);
  const struct plugin_ops *ops = &dev->plugin->ops;
  int rc;
  if (kargs_version >= TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST &&
      ops->run_target_kernel)
    rc = RTL_CALL(DEVOPS_LAUNCH_KERNEL, ops, run_target_kernel)(
        dev->rtl_id, kernel->tgt_addr, args, offsets, num_args, num_teams,
        thread_limit, tripcount, kargs_version, NULL);
  else
    rc = RTL_CALL(DEVOPS_LAUNCH, ops, run_target_team_region)(
        dev->rtl_id, kernel->tgt_addr, args, offsets, num_args, num_teams,
        thread_limit, tripcount);
  if (ok.traced && rc != OFFLOAD_SUCCESS)
    device_time_next_op(dev, NULL); /* it may not have reached the plugin */
  ompt_submit_end(&ok);
  if (PROFILE_ON())
    profile_kernel(dev->id, -1, kernel->name, num_teams, thread_limit, t0);
  if (rc != OFFLOAD_SUCCESS) {
    report_error_set("device %d: running kernel %s (device %p) with %d "
                     "argument%s, %d teams, thread limit %d failed",
                     dev->id, kernel->name ? kernel->name : "?",
                     kernel->tgt_addr, num_args, num_args == 1 ? "" : "s",
                     num_teams, thread_limit);
    report_finding_kernel(kernel->name);
    device_add_plugin_cause(dev);
  }
  return rc;
}
