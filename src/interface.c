/*
 * interface.c - the __tgt_* entry points compilers call. Each one checks its
 * arguments, resolves the device, calls the engine (maps.c, launch.c) and,
 * when the construct fails, hands the recorded cause to the failure policy
 * (failure_apply_policy, failure.c), the only place that may end the program.
 *
 * Asynchronous constructs (nowait, and the seed's asynchronous interface)
 * are dispatched on an async record (src/async.h). With a host libomp 16+
 * (it exports __kmpc_omp_get_target_async_handle_ptr, looked up once with
 * dlsym(RTLD_DEFAULT)) a nowait construct stores its record in its task and
 * returns at once; libomp calls __tgt_target_nowait_query until the record
 * has completed (seed 004). Without that protocol (libomp 14/15, a thread
 * outside any task team) the dispatching thread waits for the record.
 *
 * Thread safety: the libomp lookups happen once (pthread_once); the seed
 * callback is an atomic pointer; see registry.c, device.c, launch.c, async.c.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "async.h"
#include "device.h"
#include "mapping_ops.h"
#include "failure.h"
#include "faults.h"
#include "launch.h"
#include "maps.h"
#include "ompt.h"
#include "plugins.h"
#include "registry.h"
#include "report.h"
#include "stale_check.h"
#include "trace.h"

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
  ompt_connect();
  report_requires_conflict();
  if (rc != 0) {
    /* Constructs of this library will fail later with "no device code";
     * say now why its images were refused. */
    report_error("cannot register offload descriptor %p: %s", (void *)desc,
                 report_error_get());
    plugins_add_rejection("descriptor %p: %s", (void *)desc,
                          report_error_get());
    report_error_clear();
    return;
  }
  /* Load the plugins now, as LLVM's runtime does at registration: their
   * libraries are loaded while the program starts, not inside its first
   * target region. Devices still start at their first use. */
  if (settings_get()->offload != POLICY_DISABLED)
    plugins_load_all();
}

EXPORT void __tgt_unregister_lib(__tgt_bin_desc *desc) {
  /* clang unregisters at exit, before our destructor: a nowait region
   * still running is said before its code goes away, and the exit counts
   * as begun before the entries go, so that a region that finds them gone
   * on another thread (libomp's hidden helper) is no fatal error of the
   * program's (failure.c) */
  async_report_running_at_exit();
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

EXPORT int __tgt_get_num_devices(void) { return devices_visible_count(); }

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

/* ---- libomp's target-task protocol (seed 004) ---------------------------- */

struct libomp_task_hooks {
  int32_t (*global_thread_num)(ident_t *);
  int32_t (*has_task_team)(int32_t gtid); /* libomp returns a bool */
  void **(*async_handle_ptr)(int32_t gtid);
};
static struct libomp_task_hooks task_hooks;
static pthread_once_t task_hooks_once = PTHREAD_ONCE_INIT;

static void task_hooks_lookup(void) {
  /* SIMTARGET_NOWAIT=wait: every nowait construct waits in its task (to
   * compare, or to rule the protocol out when hunting a bug). */
  if (settings_get()->nowait_waits)
    return;
  /* An OMPT tool is attached: the construct's target-end event follows its
   * last data operation only when the construct completes in its task. */
  if (ompt_active)
    return;
  void *num = dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num");
  void *team = dlsym(RTLD_DEFAULT, "__kmpc_omp_has_task_team");
  void *handle = dlsym(RTLD_DEFAULT, "__kmpc_omp_get_target_async_handle_ptr");
  if (!num || !team || !handle)
    return;
  task_hooks.global_thread_num = (int32_t (*)(ident_t *))num;
  task_hooks.has_task_team = (int32_t (*)(int32_t))team;
  task_hooks.async_handle_ptr = (void **(*)(int32_t))handle;
}

/* The async-handle slot of the task running on this thread, or NULL when
 * the construct must complete before it returns. libomp's own bool return
 * of has_task_team is read as its low byte. */
static void **task_async_handle(void) {
  pthread_once(&task_hooks_once, task_hooks_lookup);
  if (!task_hooks.async_handle_ptr)
    return NULL;
  int32_t gtid = task_hooks.global_thread_num(NULL);
  if (gtid < 0 || !(task_hooks.has_task_team(gtid) & 0xff))
    return NULL;
  void **slot = task_hooks.async_handle_ptr(gtid);
  if (!slot || *slot)
    return NULL; /* never overwrite a handle libomp still holds */
  return slot;
}

/* Nowait constructs dispatched so far (their copies back queued, and under
 * the stale check with memcheck their host bytes marked): what
 * simtarget-check's preloaded nowait_started.c waits for after libomp
 * queued a target task. */
EXPORT _Atomic uint64_t simtarget_nowait_dispatched;

/*
 * The synchronise stage of a nowait construct whose record `rec` was
 * dispatched on `dev`: hand it to the task when libomp can re-run the task,
 * else wait for it here. Returns 0, or -1 with the cause recorded.
 */
static int finish_nowait(struct async_record *rec) {
  atomic_fetch_add_explicit(&simtarget_nowait_dispatched, 1, memory_order_release);
  void **slot = task_async_handle();
  enum async_status st = ASYNC_PENDING;
  if (slot) {
    /* Ended already (a short kernel): complete it here, as LLVM's runtime
     * does when its queue is done, instead of having libomp re-queue the
     * task for one more poll (each re-queue wakes a helper thread, and on
     * few cores waits for one to get a CPU). */
    st = async_record_poll(rec);
    if (st == ASYNC_PENDING) {
      report_debug("nowait construct dispatched; its task completes it "
                   "(__tgt_target_nowait_query)");
      async_record_set_in_task(rec, true);
      *slot = rec;
      return 0;
    }
    report_debug("nowait construct ended in its dispatch; completed there");
  } else {
    report_debug("nowait construct dispatched; waiting for it here (no "
                 "libomp 16+ task to hand it to)");
    st = async_record_wait(rec);
  }
  if (st == ASYNC_FAILED) {
    report_error_set("%s", async_record_error(rec));
    async_record_put(rec);
    return -1;
  }
  async_record_put(rec);
  return 0;
}

EXPORT void __tgt_target_nowait_query(void **async_handle) {
  report_init();
  if (!async_handle || !*async_handle) {
    report_error_clear();
    report_error_set("__tgt_target_nowait_query: %s (is the task a target "
                     "nowait region?)",
                     async_handle ? "the task's asynchronous handle is NULL"
                                  : "the handle pointer is NULL");
    failure_apply_policy(NULL, "target nowait", NULL, NULL);
    return;
  }
  struct async_record *rec = *async_handle;
  enum async_status st = async_record_poll(rec);
  if (st == ASYNC_PENDING)
    return;
  *async_handle = NULL;
  async_record_set_in_task(rec, false);
  if (st == ASYNC_FAILED && async_record_abandoned(rec)) {
    /* reported at exit already: the device went away under it */
    report_debug("an abandoned %s ended: %s", async_record_what(rec),
                 async_record_error(rec));
    async_record_put(rec);
    return;
  }
  if (st == ASYNC_FAILED) {
    report_error_clear();
    report_error_set("%s (the construct's task had already returned, so its "
                     "host version cannot run instead)",
                     async_record_error(rec));
    struct device *dev = async_record_device(rec);
    const ident_t *loc = async_record_location(rec);
    const char *what = async_record_what(rec);
    async_record_put(rec);
    failure_apply_policy(loc, what, dev, NULL);
    return;
  }
  async_record_put(rec);
}

/* ---- device ids -2 and -3 (seed 000) ------------------------------------- */

/* -2 names every device, -3 every device a construct has used so far. */
static bool names_many_devices(int64_t device_id) {
  return device_id == OFFLOAD_DEVICE_ALL_PENDING ||
         device_id == OFFLOAD_DEVICE_ALL_USED;
}

/* Run `run` on each device `device_id` (-2 or -3) names, made ready first,
 * in id order, stopping at the first failure. 0, or -1 with the cause
 * recorded and *failed set to the device that failed. */
static int on_each_device(int64_t device_id,
                          int (*run)(struct device *dev, void *arg), void *arg,
                          struct device **failed) {
  for (int d = 0; d < devices_count(); d++) {
    struct device *each = device_get(d);
    if (!each || (device_id == OFFLOAD_DEVICE_ALL_USED &&
                  !__atomic_load_n(&each->used, __ATOMIC_RELAXED)))
      continue;
    if (device_ready(each) != 0 || run(each, arg) != 0) {
      *failed = each;
      return -1;
    }
  }
  return 0;
}

/* ---- data constructs ----------------------------------------------------- */

enum data_op { DATA_BEGIN, DATA_END, DATA_UPDATE };

static const char *const data_op_names[] = {
    [DATA_BEGIN] = "target data begin / target enter data",
    [DATA_END] = "target data end / target exit data",
    [DATA_UPDATE] = "target update",
};

/* One data construct on one device; on `rec` when it is asynchronous. */
static int data_op_on_device(struct device *dev, enum data_op op,
                             const struct map_args *a,
                             struct async_record *rec) {
  int rc;
  switch (op) {
  case DATA_BEGIN: rc = maps_data_begin_async(dev, a, rec); break;
  case DATA_END: rc = maps_data_end_async(dev, a, rec); break;
  default: rc = maps_data_update_async(dev, a, rec); break;
  }
  if (rc == 0)
    __atomic_store_n(&dev->used, true, __ATOMIC_RELAXED);
  return rc;
}

struct data_op_call {
  enum data_op op;
  const struct map_args *args;
};

/* on_each_device's step for a data construct (synchronous). */
static int data_op_on_each(struct device *dev, void *arg) {
  const struct data_op_call *call = arg;
  return data_op_on_device(dev, call->op, call->args, NULL);
}

/* A nowait data construct on one device: dispatched on a new record, then
 * finished as finish_nowait says. 0 or -1 with the cause recorded. */
static int data_op_nowait(const ident_t *loc, struct device *dev,
                          enum data_op op, const struct map_args *a) {
  struct async_record *rec = async_record_new(dev, data_op_names[op], loc);
  if (!rec)
    return -1;
  if (data_op_on_device(dev, op, a, rec) != 0) {
    async_record_wait(rec); /* nothing queued may outlive the failure */
    async_record_put(rec);
    return -1;
  }
  return finish_nowait(rec);
}

/* A nowait construct whose task started once the program began to exit
 * (its code is being unloaded, and no taskwait waits for it): no failure
 * of the program's own. Says so and what happens instead. */
static void say_started_at_exit(const ident_t *loc, const char *what,
                                const char *instead) {
  char where[512], text[1024];
  snprintf(text, sizeof text, "the `%s nowait` construct at %s started after "
                              "the program began to exit (no taskwait waited "
                              "for it); %s",
           what, report_location(loc, where, sizeof where), instead);
  fprintf(stderr, "omptarget warning: %s\n", text);
  trace_note("running_at_exit", text);
}

/* The construct kinds of the JSON trace (trace.h): which construct the
 * entry point serves, not the entry point's name. */
static const char *const data_op_trace_kinds[] = {
    [DATA_BEGIN] = "enter", [DATA_END] = "exit", [DATA_UPDATE] = "update"};

/* The OMPT construct kinds (ompt_target_t). */
static const int ompt_data_kinds[] = {[DATA_BEGIN] = OMPT_TARGET_ENTER_DATA,
                                      [DATA_END] = OMPT_TARGET_EXIT_DATA,
                                      [DATA_UPDATE] = OMPT_TARGET_UPDATE};

static void data_construct(const char *entry, ident_t *loc, int64_t device_id,
                           enum data_op op, int32_t num, void **base,
                           void **begin, int64_t *sizes, int64_t *types,
                           void **names, void **mappers, bool nowait) {
  const char *what = data_op_names[op];
  struct map_args a = {num, base, begin, sizes, types, names, mappers};
  struct device *dev = NULL;
  report_init();
  report_error_clear();
  stale_check_construct(loc, what);
  if (settings_get()->offload == POLICY_DISABLED)
    return;
  struct trace_call_info info = {.entry = entry,
                                 .construct = data_op_trace_kinds[op],
                                 .loc = loc,
                                 .device_id = device_id,
                                 .nowait = nowait};
  trace_call(&info, &a);
  if (maps_check_args(&a, what) != 0)
    goto fail;
  map_args_print(what, loc, &a);
  if (names_many_devices(device_id)) {
    struct data_op_call call = {op, &a};
    if (on_each_device(device_id, data_op_on_each, &call, &dev) == 0)
      goto done;
    goto fail;
  }
  switch (target_resolve(device_id, &dev)) {
  case TARGET_ON_HOST: trace_result("host", NULL); return;
  case TARGET_FAILED: goto fail;
  case TARGET_ON_DEVICE: break;
  }
  if (ompt_active)
    ompt_target_begin(ompt_data_kinds[op] | (nowait ? OMPT_TARGET_NOWAIT_BIT
                                                    : 0),
                      dev->id);
  int rc = nowait ? data_op_nowait(loc, dev, op, &a)
                  : data_op_on_device(dev, op, &a, NULL);
  if (ompt_active)
    ompt_target_end();
  if (rc == 0)
    goto done;
fail:
  if (nowait && async_exit_started()) {
    say_started_at_exit(loc, what, "it is skipped");
    trace_result("host", report_error_get());
    report_error_clear();
    return;
  }
  trace_result("failed", report_error_get());
  failure_apply_policy(loc, what, dev, &a);
  return;
done:
  trace_result(nowait ? "queued" : "ok", NULL);
}

EXPORT void __tgt_target_data_begin_mapper(ident_t *loc, int64_t device_id,
                                           int32_t arg_num, void **args_base,
                                           void **args, int64_t *arg_sizes,
                                           int64_t *arg_types,
                                           void **arg_names,
                                           void **arg_mappers) {
  ompt_set_codeptr(__builtin_return_address(0));
  data_construct(__func__, loc, device_id, DATA_BEGIN, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers, false);
}

EXPORT void __tgt_target_data_end_mapper(ident_t *loc, int64_t device_id,
                                         int32_t arg_num, void **args_base,
                                         void **args, int64_t *arg_sizes,
                                         int64_t *arg_types, void **arg_names,
                                         void **arg_mappers) {
  ompt_set_codeptr(__builtin_return_address(0));
  data_construct(__func__, loc, device_id, DATA_END, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers, false);
}

EXPORT void __tgt_target_data_update_mapper(ident_t *loc, int64_t device_id,
                                            int32_t arg_num, void **args_base,
                                            void **args, int64_t *arg_sizes,
                                            int64_t *arg_types,
                                            void **arg_names,
                                            void **arg_mappers) {
  ompt_set_codeptr(__builtin_return_address(0));
  data_construct(__func__, loc, device_id, DATA_UPDATE, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers, false);
}

/* The nowait forms are asynchronous (finish_nowait). Their dependence
 * arguments are never read: clang has already resolved them in the target
 * task around the call, and they are garbage for clang 13-16 callers.
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
  ompt_set_codeptr(__builtin_return_address(0));
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  data_construct(__func__, loc, device_id, DATA_BEGIN, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers, true);
  KEEP_FRAME();
}

EXPORT void __tgt_target_data_end_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  ompt_set_codeptr(__builtin_return_address(0));
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  data_construct(__func__, loc, device_id, DATA_END, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers, true);
  KEEP_FRAME();
}

EXPORT void __tgt_target_data_update_nowait_mapper(
    ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, void **arg_names,
    void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  ompt_set_codeptr(__builtin_return_address(0));
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  data_construct(__func__, loc, device_id, DATA_UPDATE, arg_num, args_base, args,
                 arg_sizes, arg_types, arg_names, arg_mappers, true);
  KEEP_FRAME();
}

/* The seed's synchronous interface (no source location, no mappers). */
EXPORT void __tgt_target_data_begin(int64_t device_id, int32_t arg_num,
                                    void **args_base, void **args,
                                    int64_t *arg_sizes, int64_t *arg_types) {
  ompt_set_codeptr(__builtin_return_address(0));
  data_construct(__func__, NULL, device_id, DATA_BEGIN, arg_num, args_base, args,
                 arg_sizes, arg_types, NULL, NULL, false);
}

EXPORT void __tgt_target_data_end(int64_t device_id, int32_t arg_num,
                                  void **args_base, void **args,
                                  int64_t *arg_sizes, int64_t *arg_types) {
  ompt_set_codeptr(__builtin_return_address(0));
  data_construct(__func__, NULL, device_id, DATA_END, arg_num, args_base, args,
                 arg_sizes, arg_types, NULL, NULL, false);
}

EXPORT void __tgt_target_data_update(int64_t device_id, int32_t arg_num,
                                     void **args_base, void **args,
                                     int64_t *arg_sizes, int64_t *arg_types) {
  ompt_set_codeptr(__builtin_return_address(0));
  data_construct(__func__, NULL, device_id, DATA_UPDATE, arg_num, args_base, args,
                 arg_sizes, arg_types, NULL, NULL, false);
}

/* ---- target regions ------------------------------------------------------ */

/* on_each_device's step for a target region (synchronous). */
static int launch_on_each(struct device *dev, void *req) {
  return launch_region(dev, req);
}

/* Returns 0 when the region ran on a device, non-zero when the compiler's
 * host version must run (clang-abi.md 2: `icmp ne i32 %r, 0`). */
/* The region's host version runs, without an error (target_resolve). */
#define TARGET_RAN_ON_HOST 1
static int32_t target_construct_run(ident_t *loc, int64_t device_id,
                                    struct launch_request *req, bool nowait,
                                    struct device **failed_dev);

static int32_t target_construct(const char *entry, ident_t *loc,
                                int64_t device_id, struct launch_request *req,
                                bool nowait, uint32_t kargs_version) {
  const char *what = nowait ? "target nowait" : "target";
  struct device *dev = NULL;
  report_init();
  report_error_clear();
  stale_check_construct(loc, what);
  if (settings_get()->offload == POLICY_DISABLED)
    return OFFLOAD_FAIL;
  struct trace_call_info info = {.entry = entry,
                                 .construct = "target",
                                 .loc = loc,
                                 .device_id = device_id,
                                 .nowait = nowait,
                                 .is_region = true,
                                 .kargs_version = kargs_version,
                                 .num_teams = req->num_teams,
                                 .thread_limit = req->thread_limit,
                                 .tripcount = req->tripcount};
  trace_call(&info, &req->args);
  int32_t rc = target_construct_run(loc, device_id, req, nowait, &dev);
  if (rc == OFFLOAD_SUCCESS) {
    trace_result(nowait ? "queued" : "ok", NULL);
    return OFFLOAD_SUCCESS;
  }
  if (rc == TARGET_RAN_ON_HOST) {
    trace_result("host", NULL);
    return OFFLOAD_FAIL;
  }
  if (nowait && async_exit_started()) {
    /* Its host version would run after main returned, on variables of
     * main's ended stack frame: the region is skipped (the task ends). */
    say_started_at_exit(loc, "target", "it is skipped (its host version "
                        "would run after main returned)");
    trace_result("failed", report_error_get());
    report_error_clear();
    return OFFLOAD_SUCCESS;
  }
  trace_result("failed", report_error_get());
  failure_apply_policy(loc, what, dev, &req->args);
  return OFFLOAD_FAIL;
}

/* A nowait region on one device: dispatched on a new record, then finished
 * as finish_nowait says. 0 or -1 with the cause recorded. */
static int target_nowait_run(ident_t *loc, struct device *dev,
                             struct launch_request *req) {
  struct async_record *rec = async_record_new(dev, "target nowait", loc);
  if (!rec)
    return -1;
  if (launch_region_async(dev, req, rec) != 0) {
    async_record_put(rec);
    return -1;
  }
  return finish_nowait(rec);
}

/* target_construct's work: OFFLOAD_SUCCESS, TARGET_RAN_ON_HOST, or
 * OFFLOAD_FAIL with the cause recorded and *failed_dev set. */
static int32_t target_construct_run(ident_t *loc, int64_t device_id,
                                    struct launch_request *req, bool nowait,
                                    struct device **failed_dev) {
  const char *what = nowait ? "target nowait" : "target";
  struct device *dev = NULL;
  if (maps_check_args(&req->args, what) != 0)
    goto fail;
  map_args_print("Entering OpenMP kernel", loc, &req->args);
  if (names_many_devices(device_id)) {
    if (on_each_device(device_id, launch_on_each, req, &dev) == 0)
      return OFFLOAD_SUCCESS;
    goto fail;
  }
  switch (target_resolve(device_id, &dev)) {
  case TARGET_ON_HOST: return TARGET_RAN_ON_HOST;
  case TARGET_FAILED: goto fail;
  case TARGET_ON_DEVICE: break;
  }
  if (ompt_active)
    ompt_target_begin(OMPT_TARGET | (nowait ? OMPT_TARGET_NOWAIT_BIT : 0),
                      dev->id);
  int rc = nowait ? target_nowait_run(loc, dev, req)
                  : launch_region(dev, req);
  if (ompt_active)
    ompt_target_end();
  if (rc == 0)
    return OFFLOAD_SUCCESS;
fail:
  *failed_dev = dev;
  return OFFLOAD_FAIL;
}

static int32_t target_teams_common(const char *entry, ident_t *loc, int64_t device_id,
                                   void *host_ptr, int32_t arg_num,
                                   void **args_base, void **args,
                                   int64_t *arg_sizes, int64_t *arg_types,
                                   void **arg_names, void **arg_mappers,
                                   int32_t num_teams, int32_t thread_limit,
                                   bool nowait) {
  struct launch_request req = {
      .host_ptr = host_ptr,
      .args = {arg_num, args_base, args, arg_sizes, arg_types, arg_names,
               arg_mappers},
      .num_teams = num_teams,
      .thread_limit = thread_limit,
      .tripcount = launch_pop_tripcount(device_id),
      .dyn_ptr = LAUNCH_DYN_PTR_NONE,
  };
  return target_construct(entry, loc, device_id, &req, nowait, 0);
}

EXPORT int32_t __tgt_target(int64_t device_id, void *host_ptr,
                            int32_t arg_num, void **args_base, void **args,
                            int64_t *arg_sizes, int64_t *arg_types) {
  ompt_set_codeptr(__builtin_return_address(0));
  return target_teams_common(__func__, NULL, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, NULL, NULL, -1, 0, false);
}

EXPORT int32_t __tgt_target_teams(int64_t device_id, void *host_ptr,
                                  int32_t arg_num, void **args_base,
                                  void **args, int64_t *arg_sizes,
                                  int64_t *arg_types, int32_t num_teams,
                                  int32_t thread_limit) {
  ompt_set_codeptr(__builtin_return_address(0));
  return target_teams_common(__func__, NULL, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, NULL, NULL,
                             num_teams, thread_limit, false);
}

EXPORT int32_t __tgt_target_mapper(ident_t *loc, int64_t device_id,
                                   void *host_ptr, int32_t arg_num,
                                   void **args_base, void **args,
                                   int64_t *arg_sizes, int64_t *arg_types,
                                   void **arg_names, void **arg_mappers) {
  ompt_set_codeptr(__builtin_return_address(0));
  return target_teams_common(__func__, loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, -1, 0, false);
}

EXPORT int32_t __tgt_target_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    void **arg_names, void **arg_mappers, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  ompt_set_codeptr(__builtin_return_address(0));
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  return target_teams_common(__func__, loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, -1, 0, true);
}

EXPORT int32_t __tgt_target_teams_mapper(ident_t *loc, int64_t device_id,
                                         void *host_ptr, int32_t arg_num,
                                         void **args_base, void **args,
                                         int64_t *arg_sizes,
                                         int64_t *arg_types, void **arg_names,
                                         void **arg_mappers, int32_t num_teams,
                                         int32_t thread_limit) {
  ompt_set_codeptr(__builtin_return_address(0));
  return target_teams_common(__func__, loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, num_teams, thread_limit, false);
}

EXPORT int32_t __tgt_target_teams_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    void **arg_names, void **arg_mappers, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  ompt_set_codeptr(__builtin_return_address(0));
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  return target_teams_common(__func__, loc, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, arg_names,
                             arg_mappers, num_teams, thread_limit, true);
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

/* KernelArgs version 4 (clang 23): the arrays end with the implicit
 * dyn_ptr, TARGET_PARAM|LITERAL; anything else there is a malformed launch
 * (an older compiler's arrays with a newer version number). 0, or -1 with
 * the cause recorded. */
static int check_trailing_dyn_ptr(const __tgt_kernel_arguments *kargs) {
  const int64_t want = OMP_TGT_MAPTYPE_TARGET_PARAM | OMP_TGT_MAPTYPE_LITERAL;
  if (kargs->NumArgs == 0 || !kargs->ArgTypes) {
    report_error_set("__tgt_target_kernel: KernelArgs version %u has no "
                     "entries, but from version %d on the last one is the "
                     "implicit dyn_ptr (TARGET_PARAM|LITERAL, 0x%" PRIx64 ")",
                     kargs->Version, TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST,
                     (uint64_t)want);
    return -1;
  }
  int64_t last = kargs->ArgTypes[kargs->NumArgs - 1];
  if (last != want) {
    report_error_set("__tgt_target_kernel: KernelArgs version %u: the last "
                     "of %u entries has type 0x%" PRIx64 ", but from version "
                     "%d on it is the implicit dyn_ptr (TARGET_PARAM|LITERAL, "
                     "0x%" PRIx64 ")",
                     kargs->Version, kargs->NumArgs, (uint64_t)last,
                     TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST, (uint64_t)want);
    return -1;
  }
  return 0;
}

/* The request's dyn_ptr place and argument count for KernelArgs version v. */
static void kernel_args_layout(const __tgt_kernel_arguments *kargs,
                               enum launch_dyn_ptr *dyn_ptr, int32_t *num) {
  *num = (int32_t)kargs->NumArgs;
  *dyn_ptr = LAUNCH_DYN_PTR_NONE;
  if (kargs->Version >= TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST) {
    *dyn_ptr = LAUNCH_DYN_PTR_LAST;
    *num -= 1; /* the mapping never sees the dyn_ptr entry */
  } else if (kargs->Version >= TGT_KERNEL_ARGS_MIN_VERSION_WITH_DYN_PTR) {
    *dyn_ptr = LAUNCH_DYN_PTR_FIRST;
  }
}

/* clang 15+: KernelArgs version 1 (15), 2 (16), 3 (19, 22), 4 (23). */
static int32_t target_kernel(const char *entry, ident_t *loc, int64_t device_id,
                             int32_t num_teams, int32_t thread_limit,
                             void *host_ptr, __tgt_kernel_arguments *kargs,
                             bool kernel_nowait_call) {
  report_init();
  report_error_clear();
  if (!kargs) {
    report_error_set("__tgt_target_kernel: the kernel-arguments pointer is "
                     "NULL");
    failure_apply_policy(loc, "target", NULL, NULL);
    return OFFLOAD_FAIL;
  }
  if (kargs->Version < 1 || kargs->Version > TGT_KERNEL_ARGS_MAX_VERSION) {
    report_error_set("__tgt_target_kernel: kernel-arguments version %u is "
                     "not supported (simtarget reads versions 1 to %d, as "
                     "emitted by clang 15 to 23)",
                     kargs->Version, TGT_KERNEL_ARGS_MAX_VERSION);
    failure_apply_policy(loc, "target", NULL, NULL);
    return OFFLOAD_FAIL;
  }
  if (kargs->Version >= TGT_KERNEL_ARGS_VERSION_DYN_PTR_LAST &&
      check_trailing_dyn_ptr(kargs) != 0) {
    failure_apply_policy(loc, "target", NULL, NULL);
    return OFFLOAD_FAIL;
  }
  if (kargs->NumArgs > INT32_MAX) {
    report_error_set("__tgt_target_kernel: NumArgs %u is out of range",
                     kargs->NumArgs);
    failure_apply_policy(loc, "target", NULL, NULL);
    return OFFLOAD_FAIL;
  }
  enum launch_dyn_ptr dyn_ptr;
  int32_t num;
  kernel_args_layout(kargs, &dyn_ptr, &num);
  struct launch_request req = {
      .host_ptr = host_ptr,
      .args = {num, kargs->ArgBasePtrs, kargs->ArgPtrs, kargs->ArgSizes,
               kargs->ArgTypes, kargs->ArgNames, kargs->ArgMappers},
      .num_teams = num_teams,
      .thread_limit = thread_limit,
      .tripcount = kargs->Tripcount,
      .dyn_ptr = dyn_ptr,
      .kargs_version = kargs->Version,
  };
  /* Flags bit 0 (version 2+): nowait. */
  bool nowait = kargs->Version >= 2 && (kargs->Flags & 1);
  return target_construct(entry, loc, device_id, &req,
                          nowait || kernel_nowait_call, kargs->Version);
}

EXPORT int32_t __tgt_target_kernel(ident_t *loc, int64_t device_id,
                                   int32_t num_teams, int32_t thread_limit,
                                   void *host_ptr,
                                   __tgt_kernel_arguments *kargs) {
  ompt_set_codeptr(__builtin_return_address(0));
  return target_kernel(__func__, loc, device_id, num_teams, thread_limit, host_ptr,
                       kargs, false);
}

/* clang 15: nowait through this entry point (KernelArgs version 1). */
EXPORT int32_t __tgt_target_kernel_nowait(
    ident_t *loc, int64_t device_id, int32_t num_teams, int32_t thread_limit,
    void *host_ptr, __tgt_kernel_arguments *args, int32_t dep_num,
    void *dep_list, int32_t noalias_dep_num, void *noalias_dep_list) {
  ompt_set_codeptr(__builtin_return_address(0));
  (void)dep_num, (void)dep_list, (void)noalias_dep_num, (void)noalias_dep_list;
  int32_t rc = target_kernel(__func__, loc, device_id, num_teams, thread_limit, host_ptr,
                             args, true);
  KEEP_FRAME();
  return rc;
}

/* ---- the seed's asynchronous interface (choices: include/omptarget.h) ---- */

static tgt_callback_fct seed_callback;

EXPORT void __tgt_init_dep(tgt_callback_fct completion_callback) {
  __atomic_store_n(&seed_callback, completion_callback, __ATOMIC_RELEASE);
}

EXPORT int32_t __tgt_enforce_dep(int32_t from_device_id, int32_t to_device_id,
                                 tgt_event_t completion_event) {
  int n = devices_count();
  return completion_event && from_device_id >= 0 && from_device_id < n &&
         to_device_id >= 0 && to_device_id < n;
}

EXPORT void __tgt_release_dep(tgt_sync_event_t completion_event) {
  if (completion_event)
    async_record_put(completion_event);
}

EXPORT int32_t __tgt_process_dep(void) { return async_process_pending(); }

enum seed_op { SEED_DATA_BEGIN, SEED_DATA_END, SEED_DATA_UPDATE, SEED_TARGET };

struct seed_call {
  enum seed_op op;
  int32_t device_id;
  void *host_addr;
  int32_t num_args;
  void **args_base, **args;
  int64_t *args_size;
  int32_t *args_maptype;
  int32_t num_teams, thread_limit;
  int32_t num_dep_events;
  tgt_event_t *dep_events;
  tgt_event_t *completion_event;
  tgt_callback_param_t param;
};

static const char *const seed_op_names[] = {
    [SEED_DATA_BEGIN] = "__tgt_target_async_data_begin",
    [SEED_DATA_END] = "__tgt_target_async_data_end",
    [SEED_DATA_UPDATE] = "__tgt_target_async_data_update",
    [SEED_TARGET] = "__tgt_target_async",
};

/* Dispatches one operation of the seed's interface on a new record.
 * Returns 0 when it was started on a device (or, for a data operation, when
 * the device is the host and there is nothing to do), OFFLOAD_FAIL when it
 * could not start; then its callback has run once and the cause went to the
 * failure policy. */
/* The OMPT kind of a seed operation: asynchronous, so a `_nowait` one. */
static int seed_ompt_kind(int op) {
  int kind = op == SEED_DATA_BEGIN    ? OMPT_TARGET_ENTER_DATA
             : op == SEED_DATA_END    ? OMPT_TARGET_EXIT_DATA
             : op == SEED_DATA_UPDATE ? OMPT_TARGET_UPDATE
                                      : OMPT_TARGET;
  return kind | OMPT_TARGET_NOWAIT_BIT;
}

static int32_t seed_dispatch(const struct seed_call *sc) {
  const char *what = seed_op_names[sc->op];
  tgt_callback_fct cb = __atomic_load_n(&seed_callback, __ATOMIC_ACQUIRE);
  struct device *dev = NULL;
  struct async_record *rec = NULL;
  int64_t *types = NULL;
  report_init();
  report_error_clear();
  if (sc->completion_event)
    *sc->completion_event = NULL;
  if (sc->num_dep_events < 0 || (sc->num_dep_events > 0 && !sc->dep_events)) {
    report_error_set("%s: %d dependence events with a%s event array", what,
                     sc->num_dep_events, sc->dep_events ? "n" : " NULL");
    goto fail;
  }
  /* Dependences: each earlier operation completes before this one starts. */
  for (int32_t i = 0; i < sc->num_dep_events; i++)
    if (sc->dep_events[i])
      async_record_wait(sc->dep_events[i]);
  if (sc->num_args > 0 && sc->args_maptype) {
    types = malloc(sizeof *types * (size_t)sc->num_args);
    if (!types) {
      report_error_set("%s: out of host memory for %d map types", what,
                       sc->num_args);
      goto fail;
    }
    for (int32_t i = 0; i < sc->num_args; i++)
      types[i] = (int64_t)(uint32_t)sc->args_maptype[i];
  }
  struct map_args a = {sc->num_args, sc->args_base, sc->args, sc->args_size,
                       types, NULL, NULL};
  if (maps_check_args(&a, what) != 0)
    goto fail;
  if (settings_get()->offload == POLICY_DISABLED)
    goto on_host;
  switch (target_resolve(sc->device_id, &dev)) {
  case TARGET_ON_HOST: goto on_host;
  case TARGET_FAILED: goto fail;
  case TARGET_ON_DEVICE: break;
  }
  rec = async_record_new(dev, what, NULL); /* the seed's calls have none */
  if (!rec)
    goto fail;
  if (types && async_defer_host_free(rec, types) != 0)
    goto fail;
  types = NULL;
  if (cb)
    async_set_callback(rec, cb, sc->param);
  if (ompt_active)
    ompt_target_begin(seed_ompt_kind(sc->op), dev->id);
  int rc;
  switch (sc->op) {
  case SEED_DATA_BEGIN: rc = maps_data_begin_async(dev, &a, rec); break;
  case SEED_DATA_END: rc = maps_data_end_async(dev, &a, rec); break;
  case SEED_DATA_UPDATE: rc = maps_data_update_async(dev, &a, rec); break;
  default: {
    struct launch_request req = {
        .host_ptr = sc->host_addr,
        .args = a,
        .num_teams = sc->num_teams,
        .thread_limit = sc->thread_limit,
        .tripcount = 0,
        .dyn_ptr = LAUNCH_DYN_PTR_NONE,
    };
    rc = launch_region_async(dev, &req, rec);
  }
  }
  if (ompt_active)
    ompt_target_end();
  if (rc != 0)
    goto fail;
  __atomic_store_n(&dev->used, true, __ATOMIC_RELAXED);
  async_track(rec);
  if (sc->completion_event)
    *sc->completion_event = rec; /* the caller's reference */
  else
    async_record_put(rec);
  return OFFLOAD_SUCCESS;

on_host:
  free(types);
  if (cb)
    cb(sc->param);
  return sc->op == SEED_TARGET ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
fail:
  free(types);
  if (rec) {
    async_record_wait(rec); /* runs the deferred work and the callback */
    async_record_put(rec);
  } else if (cb) {
    cb(sc->param);
  }
  failure_apply_policy(NULL, what, dev, NULL);
  return OFFLOAD_FAIL;
}

EXPORT void __tgt_target_async_data_begin(
    int32_t device_id, int32_t num_args, void **args_base, void **args,
    int64_t *args_size, int32_t *args_maptype, int32_t num_dep_events,
    tgt_event_t *dep_events, tgt_event_t *completion_event,
    tgt_callback_param_t param) {
  ompt_set_codeptr(__builtin_return_address(0));
  struct seed_call sc = {SEED_DATA_BEGIN, device_id, NULL, num_args,
                         args_base, args, args_size, args_maptype, 0, 0,
                         num_dep_events, dep_events, completion_event, param};
  seed_dispatch(&sc);
}

EXPORT void __tgt_target_async_data_end(
    int32_t device_id, int32_t num_args, void **args_base, void **args,
    int64_t *args_size, int32_t *args_maptype, int32_t num_dep_events,
    tgt_event_t *dep_events, tgt_event_t *completion_event,
    tgt_callback_param_t param) {
  ompt_set_codeptr(__builtin_return_address(0));
  struct seed_call sc = {SEED_DATA_END, device_id, NULL, num_args,
                         args_base, args, args_size, args_maptype, 0, 0,
                         num_dep_events, dep_events, completion_event, param};
  seed_dispatch(&sc);
}

EXPORT void __tgt_target_async_data_update(
    int32_t device_id, int32_t num_args, void **args_base, void **args,
    int64_t *args_size, int32_t *args_maptype, int32_t num_dep_events,
    tgt_event_t *dep_events, tgt_event_t *completion_event,
    tgt_callback_param_t param) {
  ompt_set_codeptr(__builtin_return_address(0));
  struct seed_call sc = {SEED_DATA_UPDATE, device_id, NULL, num_args,
                         args_base, args, args_size, args_maptype, 0, 0,
                         num_dep_events, dep_events, completion_event, param};
  seed_dispatch(&sc);
}

/* __tgt_target_async(_teams) list args_maptype twice; the second must be
 * NULL or the first again. A mismatch fails the call as seed_dispatch
 * fails one: the failure policy, then the callback once. */
static int32_t seed_target(const char *what, const struct seed_call *sc,
                           int32_t *maptype_again) {
  if (!maptype_again || maptype_again == sc->args_maptype)
    return seed_dispatch(sc);
  report_init();
  report_error_clear();
  report_error_set("%s: the second args_maptype (%p) differs from the first "
                   "(%p); it must be NULL or the same array "
                   "(include/omptarget.h)",
                   what, (void *)maptype_again, (void *)sc->args_maptype);
  failure_apply_policy(NULL, what, NULL, NULL);
  if (sc->completion_event)
    *sc->completion_event = NULL;
  tgt_callback_fct cb = __atomic_load_n(&seed_callback, __ATOMIC_ACQUIRE);
  if (cb)
    cb(sc->param);
  return OFFLOAD_FAIL;
}

EXPORT int32_t __tgt_target_async(int32_t device_id, void *host_addr,
                                  int32_t num_args, void **args_base,
                                  void **args, int64_t *args_size,
                                  int32_t *args_maptype,
                                  int32_t *args_maptype_again,
                                  int32_t num_dep_events,
                                  tgt_event_t *dep_events,
                                  tgt_event_t *completion_event,
                                  tgt_callback_param_t param) {
  ompt_set_codeptr(__builtin_return_address(0));
  struct seed_call sc = {SEED_TARGET, device_id, host_addr, num_args,
                         args_base, args, args_size, args_maptype, -1, 0,
                         num_dep_events, dep_events, completion_event, param};
  return seed_target("__tgt_target_async", &sc, args_maptype_again);
}

EXPORT int32_t __tgt_target_async_teams(
    int32_t device_id, void *host_addr, int32_t num_args, void **args_base,
    void **args, int64_t *args_size, int32_t *args_maptype, int32_t num_teams,
    int32_t thread_limit, int32_t *args_maptype_again, int32_t num_dep_events,
    tgt_event_t *dep_events, tgt_event_t *completion_event,
    tgt_callback_param_t param) {
  ompt_set_codeptr(__builtin_return_address(0));
  struct seed_call sc = {SEED_TARGET, device_id, host_addr, num_args,
                         args_base, args, args_size, args_maptype, num_teams,
                         thread_limit, num_dep_events, dep_events,
                         completion_event, param};
  return seed_target("__tgt_target_async_teams", &sc, args_maptype_again);
}

/* ---- library lifetime ---------------------------------------------------- */

static int dump_one_table(struct device *dev) {
  char title[64];
  snprintf(title, sizeof title, "mapping table of device %d at exit",
           dev->id);
  mapping_dump_locking(&dev->map, stderr, title);
  return 0;
}

__attribute__((destructor)) static void interface_fini(void) {
  async_report_running_at_exit();
  if (REPORT_INFO_ON(INFO_DUMP_TABLE)) {
    int n = devices_count();
    for (int d = 0; d < n; d++) {
      struct device *dev = device_get(d);
      if (dev && dev->state == DEVICE_READY)
        dump_one_table(dev);
    }
  }
  /* What the devices still hold, compared while they run (issue 32). */
  stale_check_at_exit();
  /* Release, not free: exit() on one host thread leaves the others running
   * (inside a construct, maybe) until the process ends. */
  devices_release_at_exit();
  plugins_release_at_exit();
}
