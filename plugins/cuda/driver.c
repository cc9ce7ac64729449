/*
 * driver.c - finds the CUDA driver at run time: dlopen("libcuda.so.1") and
 * dlsym of the entry points in CUDA_DRIVER_FUNCTIONS. Nothing here links
 * against libcuda, so the plugin loads (and reports zero devices) on a
 * machine without the driver.
 *
 * Test hook: SIMTARGET_CUDA_DRIVER=/path/lib.so opens that file instead
 * (tests/cuda uses a driver test double). It is not meant for users.
 *
 * It also holds the plugin's loaded driver table and device count
 * (cuda_driver_loaded, cuda_device_count): plugin.c fills them at init,
 * devenv.c, modules.c and launch.c read them (driver_get,
 * driver_device_count) without calling up into plugin.c.
 *
 * Locking: none here; the caller (plugin.c) holds plugin_state_lock.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

#define CUDA_DRIVER_SONAME "libcuda.so.1"
#define STRINGIFY(x) #x
/* Expands the renaming macro first (cuda_driver_api.h): cuMemAlloc ->
 * "cuMemAlloc_v2". */
#define SYMBOL_NAME(fn) STRINGIFY(fn)

struct cuda_driver cuda_driver_loaded;
int32_t cuda_device_count;

const struct cuda_driver *driver_get(void) { return &cuda_driver_loaded; }
int32_t driver_device_count(void) { return cuda_device_count; }

int driver_open(struct cuda_driver *drv, char *why, size_t why_len) {
  memset(drv, 0, sizeof *drv);
  const char *override = cuda_settings()->driver_path;
  const char *path =
      override && override[0] ? override : CUDA_DRIVER_SONAME;
  snprintf(drv->path, sizeof drv->path, "%s", path);
  dlerror();
  drv->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (drv->handle == NULL) {
    const char *msg = dlerror();
    snprintf(why, why_len,
             "the CUDA driver %s cannot be loaded (%s)%s", path,
             msg ? msg : "unknown reason",
             override && override[0]
                 ? " [SIMTARGET_CUDA_DRIVER]"
                 : ": no NVIDIA driver is installed on this machine");
    return -1;
  }
#define CUDA_DRIVER_RESOLVE(req, fn)                                           \
  drv->fn = (__typeof__(&fn))dlsym(drv->handle, SYMBOL_NAME(fn));              \
  if ((req) && drv->fn == NULL) {                                              \
    snprintf(why, why_len,                                                     \
             "the CUDA driver %s lacks the function %s (driver too old?)",     \
             path, SYMBOL_NAME(fn));                                           \
    goto out_close;                                                            \
  }
  CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_RESOLVE)
#undef CUDA_DRIVER_RESOLVE
  return 0;

out_close:
  dlclose(drv->handle);
  memset(drv, 0, sizeof *drv);
  return -1;
}

void driver_close(struct cuda_driver *drv) {
  if (drv->handle != NULL)
    dlclose(drv->handle);
  memset(drv, 0, sizeof *drv);
}

void driver_result_text(const struct cuda_driver *drv, CUresult rc, char *buf,
                        size_t len) {
  const char *name = NULL, *text = NULL;
  if (drv != NULL && drv->cuGetErrorName != NULL &&
      drv->cuGetErrorName(rc, &name) != CUDA_SUCCESS)
    name = NULL;
  if (drv != NULL && drv->cuGetErrorString != NULL &&
      drv->cuGetErrorString(rc, &text) != CUDA_SUCCESS)
    text = NULL;
  if (name != NULL && text != NULL)
    snprintf(buf, len, "%s: %s", name, text);
  else if (name != NULL)
    snprintf(buf, len, "%s (error %d)", name, (int)rc);
  else
    snprintf(buf, len, "CUDA error %d (the driver does not name it)",
             (int)rc);
}
