/*
 * plugins.c - find the plugins (libomptarget.rtl.<name>.so), load them, check
 * them against TGT_RTL_INTERFACE, and number their devices.
 *
 * Locking: `plugins_mutex` guards `plugin_list`, `plugin_count`,
 * `plugins_loaded` and `total_devices` while they are built and torn down;
 * once plugins_load_all() has returned, the list is read-only until
 * plugins_unload_all(), so readers do not lock. `rejections_mutex` guards
 * the rejection text and the text of plugins without devices (append-only,
 * zero-filled, so a reader always sees a NUL-terminated prefix).
 */
#include "plugins.h"
#include "array.h"
#include "faults.h"
#include "lock_check.h"
#include "registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGIN_PREFIX "libomptarget.rtl."
#define PLUGIN_SUFFIX ".so"
#define MAX_DEVICES_PER_PLUGIN 4096
#define MAX_PLUGINS 64

static pthread_mutex_t plugins_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool plugins_loaded;
static struct plugin *plugin_list;
static int plugin_count;
static int total_devices;

static pthread_mutex_t rejections_mutex = PTHREAD_MUTEX_INITIALIZER;
struct line_log {
  char text[8192];
  size_t len;
};
static struct line_log rejections, idle_plugins;

/* Appends one line to a log, said under the LIBOMPTARGET_INFO bits given. */
static void log_line(struct line_log *log, uint32_t info_bits, const char *fmt,
                     va_list ap) {
  char line[1024];
  vsnprintf(line, sizeof line, fmt, ap);
  report_info(info_bits, "%s", line);
  report_debug("%s", line);
  pthread_mutex_lock(&rejections_mutex);
  size_t room = sizeof log->text - log->len;
  size_t need = strlen(line) + 1;
  if (need < room) {
    memcpy(log->text + log->len, line, need - 1);
    log->text[log->len + need - 1] = '\n';
    log->len += need;
  }
  pthread_mutex_unlock(&rejections_mutex);
}

void plugins_add_rejection(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_line(&rejections, ~0u, fmt, ap);
  va_end(ap);
}

/* A plugin that works but finds no device (no driver, no GPU) is not an
 * error: its reason is plugin information (0x10), said once. */
static void plugins_add_idle(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void plugins_add_idle(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_line(&idle_plugins, INFO_PLUGIN_KERNEL, fmt, ap);
  va_end(ap);
}

const char *plugins_rejections(void) { return rejections.text; }
const char *plugins_without_devices(void) { return idle_plugins.text; }

/* Generated from the interface table: one check per required row. */
int plugins_check_compliance(const struct plugin_ops *ops, char *why,
                             size_t why_len) {
  if (!ops) {
    snprintf(why, why_len, "no function table");
    return -1;
  }
#define CHECK_REQUIRED(req, ret, name, params, args, fail)                     \
  if ((req) && !ops->name) {                                                   \
    snprintf(why, why_len,                                                     \
             "missing required function __tgt_rtl_" #name);                    \
    return -1;                                                                 \
  }
  TGT_RTL_INTERFACE(CHECK_REQUIRED)
#undef CHECK_REQUIRED
  int32_t version = RTL_CALL(PLUGINS_ABI_VERSION, ops, abi_version)();
  if (version != SIMTARGET_PLUGIN_ABI_VERSION) {
    snprintf(why, why_len, "plugin ABI version %d, libomptarget expects %d",
             version, SIMTARGET_PLUGIN_ABI_VERSION);
    return -1;
  }
  return 0;
}

/* Generated from the interface table: dlsym every row. */
static void plugin_resolve(void *handle, struct plugin_ops *ops) {
#define RESOLVE_ROW(req, ret, name, params, args, fail)                        \
  ops->name = faults_absent(FAULT_FN_##name)                                   \
                  ? NULL /* made absent: the fallback runs */                  \
                  : (ret(*) params)dlsym(handle, "__tgt_rtl_" #name);
  TGT_RTL_INTERFACE(RESOLVE_ROW)
#undef RESOLVE_ROW
}

/* "libomptarget.rtl.x.so" -> "x"; any other file name is kept as it is. */
static char *plugin_name_from_path(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  size_t pre = strlen(PLUGIN_PREFIX), suf = strlen(PLUGIN_SUFFIX);
  if (len > pre + suf && !strncmp(base, PLUGIN_PREFIX, pre) &&
      !strcmp(base + len - suf, PLUGIN_SUFFIX))
    return strndup(base + pre, len - pre - suf);
  return strdup(base);
}

static bool accepts_a_registered_image(const struct plugin *p);

int plugins_open(const char *path, struct plugin *out, char *why,
                 size_t why_len) {
  int failure = -1;
  memset(out, 0, sizeof *out);
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *msg = dlerror();
    size_t len = strlen(path);
    /* glibc repeats the path; the caller already names it */
    if (msg && !strncmp(msg, path, len) && !strncmp(msg + len, ": ", 2))
      msg += len + 2;
    snprintf(why, why_len, "cannot be loaded: %s", msg ? msg : "unknown");
    return -1;
  }
  plugin_resolve(handle, &out->ops);
  if (plugins_check_compliance(&out->ops, why, why_len) < 0)
    goto out_close;
  if (out->ops.init_plugin) {
    int32_t rc = RTL_CALL(PLUGINS_INIT_PLUGIN, &out->ops, init_plugin)();
    if (rc != 0) {
      snprintf(why, why_len, "__tgt_rtl_init_plugin returned %d", rc);
      goto out_close;
    }
  }
  /* LIBOMPTARGET_INFO, as __tgt_set_info_flag would pass it: what a plugin
   * says under it (kernels, the address space it gives `requires`) then
   * needs no call from the program. Advisory: a refusal is only logged. */
  if (out->ops.set_info_flag && report_info_flags() != 0 &&
      RTL_CALL(PLUGINS_SET_INFO_FLAG, &out->ops,
               set_info_flag)(report_info_flags()) != 0)
    report_debug("%s: __tgt_rtl_set_info_flag refused 0x%x", path,
                 report_info_flags());
  int32_t devices =
      RTL_CALL(PLUGINS_NUMBER_OF_DEVICES, &out->ops, number_of_devices)();
  if (devices < 0 || devices > MAX_DEVICES_PER_PLUGIN) {
    snprintf(why, why_len,
             "__tgt_rtl_number_of_devices returned %d (expected 0..%d)",
             devices, MAX_DEVICES_PER_PLUGIN);
    goto out_deinit;
  }
  if (devices == 0) {
    /* Say why when the plugin can (no driver, no GPU, ...). The device id
     * is meaningless here; a plugin answers with its own global cause. */
    __tgt_rtl_error err;
    memset(&err, 0, sizeof err);
    if (out->ops.get_last_error &&
        RTL_CALL(PLUGINS_NO_DEVICES_CAUSE, &out->ops, get_last_error)(
            0, &err) == 0 &&
        err.message[0]) {
      err.message[sizeof err.message - 1] = '\0';
      snprintf(why, why_len, "has no devices: %s", err.message);
    } else {
      snprintf(why, why_len, "has no devices");
    }
    /* Whether a registered image is for its devices: a plugin that joins
     * on demand (simdevice-ppc64le) and would not have joined anyway is
     * not news, whatever made it idle (its optional tools missing). */
    failure = accepts_a_registered_image(out) ? -2 : -3;
    goto out_deinit;
  }
  out->name = plugin_name_from_path(path);
  out->path = strdup(path);
  if (!out->name || !out->path) {
    snprintf(why, why_len, "out of memory");
    goto out_free_names;
  }
  out->handle = handle;
  out->num_devices = devices;
  return 0;

out_free_names:
  free(out->name);
  free(out->path);
out_deinit:
  if (out->ops.deinit_plugin &&
      RTL_CALL(PLUGINS_DEINIT_PLUGIN_OPEN, &out->ops, deinit_plugin)() != 0)
    report_error("%s: releasing the refused plugin failed "
                 "(__tgt_rtl_deinit_plugin)",
                 path);
out_close:
  dlclose(handle);
  memset(out, 0, sizeof *out);
  return failure;
}

/* Discovery order: simdevice, its other machines (simdevice-ppc64le), cuda,
 * then the rest by name. */
static int plugin_rank(const char *name) {
  if (!strncmp(name, "simdevice", 9))
    return 0;
  if (!strcmp(name, "cuda"))
    return 1;
  return 2;
}

static int compare_plugin_names(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  int rx = plugin_rank(x), ry = plugin_rank(y);
  if (rx != ry)
    return rx - ry;
  return strcmp(x, y);
}

void plugins_free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

int plugins_list_folder(const char *dir, char ***names_out, size_t *n_out) {
  *names_out = NULL;
  *n_out = 0;
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  char **names = NULL;
  size_t n = 0, cap = 0;
  size_t pre = strlen(PLUGIN_PREFIX), suf = strlen(PLUGIN_SUFFIX);
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len <= pre + suf || strncmp(de->d_name, PLUGIN_PREFIX, pre) ||
        strcmp(de->d_name + len - suf, PLUGIN_SUFFIX))
      continue;
    if (memchr(de->d_name + pre, '.', len - pre - suf))
      continue; /* "libomptarget.rtl.x.so.1" style or odd names: not ours */
    if (ARRAY_RESERVE(names, cap, n + 1) != 0)
      goto out_free_names;
    names[n] = strndup(de->d_name + pre, len - pre - suf);
    if (!names[n])
      goto out_free_names;
    n++;
  }
  closedir(d);
  if (n)
    qsort(names, n, sizeof *names, compare_plugin_names);
  *names_out = names;
  *n_out = n;
  return 0;

out_free_names:
  closedir(d);
  plugins_free_names(names, n);
  return -1;
}

/* The folder libomptarget.so was loaded from (or the test executable's). */
static int own_folder(char *buf, size_t len) {
  Dl_info info;
  char resolved[PATH_MAX];
  const char *file;
  if (dladdr((void *)&own_folder, &info) && info.dli_fname &&
      info.dli_fname[0])
    file = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
  else if (realpath("/proc/self/exe", resolved))
    file = resolved; /* linked into an executable (unit tests) */
  else
    return -1;
  const char *slash = strrchr(file, '/');
  if (!slash)
    return snprintf(buf, len, ".") >= (int)len ? -1 : 0;
  size_t dir_len = (size_t)(slash - file);
  if (dir_len + 1 > len)
    return -1;
  memcpy(buf, file, dir_len);
  buf[dir_len] = '\0';
  if (dir_len == 0)
    snprintf(buf, len, "/");
  return 0;
}

/* A list entry is a path when it contains '/', else a plugin name. */
static int candidate_path(const char *dir, const char *item, char *path,
                          size_t len) {
  int n = strchr(item, '/')
              ? snprintf(path, len, "%s", item)
              : snprintf(path, len, "%s/" PLUGIN_PREFIX "%s" PLUGIN_SUFFIX,
                         dir, item);
  return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

/* Caller holds plugins_mutex. */
static bool already_loaded(const char *name) {
  LOCK_ASSERT_HELD(&plugins_mutex);
  for (int i = 0; i < plugin_count; i++)
    if (!strcmp(plugin_list[i].name, name))
      return true;
  return false;
}

void plugins_close(struct plugin *p) {
  if (p->ops.deinit_plugin &&
      RTL_CALL(PLUGINS_DEINIT_PLUGIN_CLOSE, &p->ops, deinit_plugin)() != 0)
    report_error("plugin %s: releasing the plugin failed "
                 "(__tgt_rtl_deinit_plugin)",
                 p->name);
  if (p->handle)
    dlclose(p->handle);
  free(p->name);
  free(p->path);
  memset(p, 0, sizeof *p);
}

/* Plugins found in the folder whose devices emulate another machine
 * (simdevice-<machine>, e.g. the ppc64le device under qemu) join only a
 * program that registered an image they accept, as LLVM 17+ does for every
 * plugin: a program built for x86-64 alone keeps its device count. Named in
 * LIBOMPTARGET_PLUGINS, they always join. */
static bool joins_on_demand(const char *name) {
  return !strncmp(name, "simdevice-", 10);
}
/* Such a plugin was found without devices (no qemu, or none asked for).
 * Guarded by plugins_mutex. */
static bool on_demand_idle;

static bool any_registered_image(void) {
  registry_lock();
  bool any = false;
  for (struct registered_lib *lib = registry_first(); lib && !any;
       lib = lib->next)
    any = lib->num_images > 0;
  registry_unlock();
  return any;
}

/* Whether a registered image is valid for plugin `p`. The images are
 * copied under the registry lock, which is never held over a plugin call. */
static bool accepts_a_registered_image(const struct plugin *p) {
  __tgt_device_image *copies = NULL;
  size_t n = 0, cap = 0;
  registry_lock();
  for (struct registered_lib *lib = registry_first(); lib; lib = lib->next)
    for (int32_t i = 0; i < lib->num_images; i++)
      if (ARRAY_RESERVE(copies, cap, n + 1) == 0)
        copies[n++] = lib->images[i].plugin_image;
  registry_unlock();
  bool found = false;
  for (size_t i = 0; i < n && !found; i++)
    found = RTL_CALL(PLUGINS_ON_DEMAND_IMAGE, &p->ops, is_valid_binary)(
                &copies[i]) != 0;
  free(copies);
  return found;
}

/* Open one plugin and append it to the list. Caller holds plugins_mutex. */
static void try_plugin(const char *dir, const char *item, bool on_demand) {
  LOCK_ASSERT_HELD(&plugins_mutex);
  char path[PATH_MAX];
  char why[512];
  if (candidate_path(dir, item, path, sizeof path) < 0) {
    plugins_add_rejection("plugin '%s': path too long", item);
    return;
  }
  if (plugin_count >= MAX_PLUGINS) {
    plugins_add_rejection("%s: more than %d plugins", path, MAX_PLUGINS);
    return;
  }
  struct plugin p;
  int opened = plugins_open(path, &p, why, sizeof why);
  if (opened == -2 || opened == -3) {
    if (on_demand && joins_on_demand(item)) {
      if (opened == -3) { /* as when it has devices but no image: debug */
        report_debug("%s: %s; no registered image is for its devices", path,
                     why);
        return;
      }
      on_demand_idle = true;
    }
    plugins_add_idle("%s: %s", path, why);
    return;
  }
  if (opened < 0) {
    plugins_add_rejection("%s: %s", path, why);
    return;
  }
  if (on_demand && joins_on_demand(p.name) &&
      !accepts_a_registered_image(&p)) {
    /* Only debug output: for the usual program (no image for it) this is
     * no news under LIBOMPTARGET_INFO. */
    report_debug("%s: no registered image is for its devices; they are "
                 "left out",
                 path);
    goto out_close;
  }
  if (already_loaded(p.name)) {
    plugins_add_rejection("%s: a plugin named '%s' is already loaded", path,
                          p.name);
    goto out_close;
  }
  if (total_devices > INT32_MAX - p.num_devices) {
    plugins_add_rejection("%s: too many devices in total", path);
    goto out_close;
  }
  p.first_device = total_devices;
  total_devices += p.num_devices;
  plugin_list[plugin_count++] = p;
  report_debug("plugin %s (%s): devices %d..%d", p.name, p.path,
               p.first_device, p.first_device + p.num_devices - 1);
  return;

out_close:
  plugins_close(&p);
}

static void load_from_env_list(const char *dir, const char *list) {
  char *copy = strdup(list);
  if (!copy) {
    plugins_add_rejection("LIBOMPTARGET_PLUGINS: out of memory");
    return;
  }
  char *save = NULL;
  for (char *item = strtok_r(copy, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    while (*item == ' ')
      item++;
    size_t len = strlen(item);
    while (len && item[len - 1] == ' ')
      item[--len] = '\0';
    if (*item)
      try_plugin(dir, item, false);
  }
  free(copy);
}

/* After the folder's plugins joined: when an on-demand plugin joined (or
 * was found without devices) and the host-machine simdevice plugin accepts
 * none of the registered images (a program built for the ppc64le device
 * only), the latter is left out, so that device 0 is one that runs the
 * program, or a mandatory failure says why there is none (LLVM 17+ has no
 * devices for a plugin without images). The devices are not built yet:
 * renumbering is safe. Caller holds plugins_mutex. */
static void drop_unwanted_host_simdevice(void) {
  LOCK_ASSERT_HELD(&plugins_mutex);
  int host = -1;
  bool other = on_demand_idle;
  for (int i = 0; i < plugin_count; i++) {
    if (!strcmp(plugin_list[i].name, "simdevice"))
      host = i;
    else if (joins_on_demand(plugin_list[i].name))
      other = true;
  }
  if (host < 0 || !other || !any_registered_image() ||
      accepts_a_registered_image(&plugin_list[host]))
    return;
  plugins_add_idle("%s: no registered image is for its devices, another "
                   "simdevice machine's are; they are left out",
                   plugin_list[host].path);
  plugins_close(&plugin_list[host]);
  for (int i = host; i + 1 < plugin_count; i++)
    plugin_list[i] = plugin_list[i + 1];
  plugin_count--;
  memset(&plugin_list[plugin_count], 0, sizeof plugin_list[plugin_count]);
  total_devices = 0;
  for (int i = 0; i < plugin_count; i++) {
    plugin_list[i].first_device = total_devices;
    total_devices += plugin_list[i].num_devices;
  }
}

static void load_from_folder(const char *dir) {
  char **names;
  size_t n;
  if (plugins_list_folder(dir, &names, &n) < 0) {
    plugins_add_rejection("cannot list plugins in %s: %s", dir,
                          strerror(errno));
    return;
  }
  for (size_t i = 0; i < n; i++)
    try_plugin(dir, names[i], true);
  plugins_free_names(names, n);
  drop_unwanted_host_simdevice();
}

int plugins_load_all(void) {
  pthread_mutex_lock(&plugins_mutex);
  if (plugins_loaded)
    goto out_unlock;
  plugins_loaded = true;
  plugin_list = calloc(MAX_PLUGINS, sizeof *plugin_list);
  if (!plugin_list) {
    plugins_add_rejection("out of memory for the plugin list");
    goto out_unlock;
  }
  char dir[PATH_MAX];
  if (own_folder(dir, sizeof dir) < 0)
    snprintf(dir, sizeof dir, ".");
  const char *env = settings_get()->plugins;
  if (env)
    load_from_env_list(dir, env);
  else
    load_from_folder(dir);
  if (plugin_count == 0)
    report_info(~0u, "no usable offload plugin was found%s%s",
                env ? " in LIBOMPTARGET_PLUGINS=" : " in ", env ? env : dir);
out_unlock:;
  int devices = total_devices;
  pthread_mutex_unlock(&plugins_mutex);
  return devices;
}

int plugins_count(void) {
  plugins_load_all();
  return plugin_count;
}

struct plugin *plugins_get(int index) {
  plugins_load_all();
  if (index < 0 || index >= plugin_count)
    return NULL;
  return &plugin_list[index];
}

struct plugin *plugins_for_device(int32_t device_id) {
  plugins_load_all();
  for (int i = 0; i < plugin_count; i++) {
    struct plugin *p = &plugin_list[i];
    if (device_id >= p->first_device &&
        device_id - p->first_device < p->num_devices)
      return p;
  }
  return NULL;
}

void plugins_release_at_exit(void) {
  pthread_mutex_lock(&plugins_mutex);
  for (int i = 0; i < plugin_count; i++) {
    struct plugin *p = &plugin_list[i];
    if (p->ops.deinit_plugin &&
        RTL_CALL(PLUGINS_DEINIT_PLUGIN_CLOSE, &p->ops, deinit_plugin)() != 0)
      report_error("plugin %s: releasing the plugin failed "
                   "(__tgt_rtl_deinit_plugin)",
                   p->name);
  }
  pthread_mutex_unlock(&plugins_mutex);
}

void plugins_unload_all(void) {
  pthread_mutex_lock(&plugins_mutex);
  for (int i = 0; i < plugin_count; i++)
    plugins_close(&plugin_list[i]);
  free(plugin_list);
  plugin_list = NULL;
  plugin_count = 0;
  total_devices = 0;
  /* A later call (a test, or a late registration) discovers them again. */
  plugins_loaded = false;
  pthread_mutex_unlock(&plugins_mutex);
}

#ifdef SIMTARGET_TEST_HOOKS
void plugins_reset_rejections_for_test(void) {
  pthread_mutex_lock(&rejections_mutex);
  memset(&rejections, 0, sizeof rejections);
  memset(&idle_plugins, 0, sizeof idle_plugins);
  pthread_mutex_unlock(&rejections_mutex);
}
#endif
