/*
 * plugins.h - plugin discovery and the interface-compliance check.
 *
 * Plugins are found by name: every `libomptarget.rtl.<name>.so` in the folder
 * of libomptarget.so, in a fixed order (simdevice first, then cuda, then any
 * other name alphabetically), or exactly the list in LIBOMPTARGET_PLUGINS
 * (comma-separated names or paths). Each is dlopen'ed RTLD_NOW, every
 * required function of TGT_RTL_INTERFACE must be present and
 * __tgt_rtl_abi_version() must equal SIMTARGET_PLUGIN_ABI_VERSION; a plugin
 * that fails says why (LIBOMPTARGET_INFO, and in the mandatory-failure report).
 *
 * Device ids follow seed 001: plugin k's devices are the range
 * [first_device, first_device + num_devices).
 *
 * Thread safety: plugins_load_all() runs once (under its mutex); afterwards the
 * plugin list is read-only until plugins_unload_all() at library exit.
 */
#ifndef SIMTARGET_PLUGINS_H
#define SIMTARGET_PLUGINS_H

#include <stddef.h>
#include <stdint.h>

#include "omptarget_plugin.h"
#include "report.h"

/* One function pointer per interface row; NULL for an absent optional one. */
struct plugin_ops {
#define PLUGIN_OPS_FIELD(req, ret, name, params, args, fail) ret(*name) params;
  TGT_RTL_INTERFACE(PLUGIN_OPS_FIELD)
#undef PLUGIN_OPS_FIELD
};

struct plugin {
  char *name;         /* "simdevice" */
  char *path;         /* the file that was loaded */
  void *handle;       /* dlopen handle; NULL for a plugin built in a test */
  struct plugin_ops ops;
  int32_t num_devices;
  int32_t first_device; /* global id of this plugin's device 0 */
};

/* Discover, load and check every plugin (once). Returns the total number of
 * devices. Never fails: a plugin that cannot be used is left out, with its
 * reason kept for plugins_rejections(). */
HIDDEN int plugins_load_all(void);
HIDDEN int plugins_count(void);
HIDDEN struct plugin *plugins_get(int index);
/* The plugin that owns global device id `device_id`, or NULL. */
HIDDEN struct plugin *plugins_for_device(int32_t device_id);
/* Every rejection so far ("libomptarget.rtl.x.so: missing __tgt_rtl_..."),
 * one per line; "" when none. Also images rejected by every plugin. */
HIDDEN const char *plugins_rejections(void);
/* Plugins that loaded but offer no device, with the plugin's reason ("...:
 * has no devices: cuda: no CUDA devices: ..."), one per line; "" when none.
 * Said under LIBOMPTARGET_INFO 0x10 only, once, as they are found. */
HIDDEN const char *plugins_without_devices(void);
HIDDEN void plugins_add_rejection(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Check an already-opened table of functions against the interface (used by
 * the loader and by unit tests). Returns 0, or -1 with a reason in `why`. */
HIDDEN int plugins_check_compliance(const struct plugin_ops *ops, char *why,
                                    size_t why_len);
/* Release every plugin (deinit_plugin, dlclose). Call devices_release_all()
 * first. A later plugins_load_all() discovers them again. */
HIDDEN void plugins_unload_all(void);
/* At program exit: deinit_plugin each plugin, but no dlclose and no free:
 * another host thread may still be inside a plugin call or about to ask
 * one for its last error (devices_release_at_exit). */
HIDDEN void plugins_release_at_exit(void);

/* The steps of discovery, for the loader and unit tests. */
/* dlopen `path`, resolve every row, check compliance, init_plugin, count
 * devices. 0 and *out filled (first_device left 0), or -1 with `why`; -2
 * when the plugin works but has no device (`why` holds its reason), -3 the
 * same when no registered image is valid for it. */
HIDDEN int plugins_open(const char *path, struct plugin *out, char *why,
                        size_t why_len);
/* Plugin names (`x` of libomptarget.rtl.x.so) in `dir`, in discovery order.
 * 0, or -1 when the folder cannot be read. Free with plugins_free_names. */
/* Undo plugins_open: deinit_plugin, dlclose, free. */
HIDDEN void plugins_close(struct plugin *p);
HIDDEN int plugins_list_folder(const char *dir, char ***names, size_t *n);
HIDDEN void plugins_free_names(char **names, size_t n);
#ifdef SIMTARGET_TEST_HOOKS
HIDDEN void plugins_reset_rejections_for_test(void);
#endif

#endif
