/*
 * plugin.c - libomptarget.rtl.simdevice-mpi.so: remote simdevice devices
 * over MPI. libomptarget loads every plugin of its folder into every
 * program, so this file links no MPI: it counts the remote devices from
 * the environment (topology.c), and only when there are some loads
 * libmpi.so.40 (RTLD_GLOBAL, as Open MPI's components need) and the
 * implementation, simdevice/libsimdevice-mpi.so (host.c, link.c), and
 * hands each call to it. A program without remote devices pays one getenv
 * per variable and loads nothing.
 *
 * Whether the program itself uses MPI is decided here, before libmpi is
 * loaded by us: libmpi already in the process (RTLD_NOLOAD finds it) means
 * the program links it, and the plugin must not call MPI_Init for it
 * (link.c).
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "omptarget.h"
#include "omptarget_plugin.h"
#include "topology.h"

/* The entry points handed over (all but abi_version, number_of_devices,
 * set_info_flag and get_last_error, which the stub answers itself until
 * the implementation is loaded). */
#define FORWARDED(X)                                                           \
  X(int32_t, is_valid_binary, (__tgt_device_image * image), (image), 0)        \
  X(int32_t, init_device, (int32_t id), (id), OFFLOAD_FAIL)                    \
  X(__tgt_target_table *, load_binary,                                         \
    (int32_t id, __tgt_device_image * image), (id, image), NULL)               \
  X(int32_t, unload_binary, (int32_t id, __tgt_device_image * image),          \
    (id, image), OFFLOAD_FAIL)                                                 \
  X(void *, data_alloc, (int32_t id, int64_t size, void *h, int32_t kind),     \
    (id, size, h, kind), NULL)                                                 \
  X(int32_t, data_delete, (int32_t id, void *t), (id, t), OFFLOAD_FAIL)        \
  X(int32_t, data_submit, (int32_t id, void *t, void *h, int64_t size),        \
    (id, t, h, size), OFFLOAD_FAIL)                                            \
  X(int32_t, data_retrieve, (int32_t id, void *h, void *t, int64_t size),      \
    (id, h, t, size), OFFLOAD_FAIL)                                            \
  X(int32_t, is_data_exchangable, (int32_t s, int32_t d), (s, d), 0)           \
  X(int32_t, data_exchange,                                                    \
    (int32_t s, void *sp, int32_t d, void *dp, int64_t size),                  \
    (s, sp, d, dp, size), OFFLOAD_FAIL)                                        \
  X(int32_t, run_target_team_region,                                           \
    (int32_t id, void *e, void **a, ptrdiff_t *o, int32_t n, int32_t t,        \
     int32_t l, uint64_t c),                                                   \
    (id, e, a, o, n, t, l, c), OFFLOAD_FAIL)                                   \
  X(int32_t, run_target_region,                                                \
    (int32_t id, void *e, void **a, ptrdiff_t *o, int32_t n),                  \
    (id, e, a, o, n), OFFLOAD_FAIL)                                            \
  X(int64_t, init_requires, (int64_t flags), (flags), flags)                   \
  X(int32_t, set_function_ptr_map,                                             \
    (int32_t id, uint64_t size, const __tgt_fptr_map *t), (id, size, t),       \
    OFFLOAD_FAIL)                                                              \
  X(int32_t, deinit_device, (int32_t id), (id), OFFLOAD_SUCCESS)               \
  X(int32_t, deinit_plugin, (void), (), OFFLOAD_SUCCESS)                       \
  X(int32_t, print_device_info, (int32_t id), (id), OFFLOAD_FAIL)            \
  X(int32_t, data_submit_async,                                                \
    (int32_t id, void *t, void *h, int64_t size, __tgt_async_info * q),        \
    (id, t, h, size, q), OFFLOAD_FAIL)                                         \
  X(int32_t, data_retrieve_async,                                              \
    (int32_t id, void *h, void *t, int64_t size, __tgt_async_info * q),        \
    (id, h, t, size, q), OFFLOAD_FAIL)                                         \
  X(int32_t, run_target_team_region_async,                                     \
    (int32_t id, void *e, void **a, ptrdiff_t *o, int32_t n, int32_t t,        \
     int32_t l, uint64_t c, __tgt_async_info * q),                             \
    (id, e, a, o, n, t, l, c, q), OFFLOAD_FAIL)                                \
  X(int32_t, synchronize, (int32_t id, __tgt_async_info * q), (id, q),         \
    OFFLOAD_FAIL)                                                              \
  X(int32_t, query_async,                                                      \
    (int32_t id, __tgt_async_info * q, int32_t * c), (id, q, c), OFFLOAD_FAIL) \
  X(int32_t, name_range,                                                       \
    (int32_t id, void *t, int64_t size, const char *text),                     \
    (id, t, size, text), 1)                                                    \
  X(int32_t, run_target_kernel,                                                \
    (int32_t id, void *e, void **a, ptrdiff_t *o, int32_t n, int32_t t,        \
     int32_t l, uint64_t c, uint32_t v, __tgt_async_info * q),                 \
    (id, e, a, o, n, t, l, c, v, q), OFFLOAD_FAIL)                             \
  X(int32_t, time_next_op, (int32_t id, uint64_t * times), (id, times),        \
    OFFLOAD_FAIL)                                                              \
  /* nothing queued where there are no remote devices */                     \
  X(int32_t, abandon_queues, (void), (), OFFLOAD_SUCCESS)

#define POINTER(ret, name, params, args, fail) ret(*name) params;
static struct {
  FORWARDED(POINTER)
  int32_t (*get_last_error)(int32_t, __tgt_rtl_error *);
  int32_t (*set_info_flag)(uint32_t);
} impl;
#undef POINTER

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int devices;
static char why[512]; /* why there are none, when something failed */
static uint32_t info_flags;

static void load_impl(void) {
  struct topology t;
  devices = topology_get(&t, why, sizeof why);
  if (devices <= 0)
    return;
  int program_mpi = dlopen("libmpi.so.40", RTLD_NOW | RTLD_NOLOAD) != NULL;
  if (dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL) == NULL) {
    snprintf(why, sizeof why, "simdevice-mpi: %d remote device%s asked for, "
             "but Open MPI's libmpi.so.40 does not load: %s", devices,
             devices == 1 ? "" : "s", dlerror());
    devices = 0;
    return;
  }
  char path[PATH_MAX];
  Dl_info d;
  if (dladdr((void *)load_impl, &d) == 0 || d.dli_fname == NULL)
    snprintf(path, sizeof path, "simdevice/libsimdevice-mpi.so");
  else {
    snprintf(path, sizeof path, "%s", d.dli_fname);
    char *slash = strrchr(path, '/');
    size_t at = slash ? (size_t)(slash + 1 - path) : 0;
    snprintf(path + at, sizeof path - at, "simdevice/libsimdevice-mpi.so");
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  void (*configure)(int, uint32_t) =
      h ? (void (*)(int, uint32_t))dlsym(h, "simdevice_mpi_configure") : NULL;
  if (configure == NULL) {
    snprintf(why, sizeof why, "simdevice-mpi: cannot load %.200s: %.250s", path,
             dlerror());
    devices = 0;
    return;
  }
#define RESOLVE(ret, name, params, args, fail)                                 \
  *(void **)&impl.name = dlsym(h, "__tgt_rtl_" #name);
  FORWARDED(RESOLVE)
#undef RESOLVE
  *(void **)&impl.get_last_error = dlsym(h, "__tgt_rtl_get_last_error");
  *(void **)&impl.set_info_flag = dlsym(h, "__tgt_rtl_set_info_flag");
  configure(program_mpi, info_flags);
}

static int ready(void) {
  pthread_once(&once, load_impl);
  return devices > 0;
}

int32_t __tgt_rtl_abi_version(void) { return SIMTARGET_PLUGIN_ABI_VERSION; }

int32_t __tgt_rtl_number_of_devices(void) {
  ready();
  return devices;
}

int32_t __tgt_rtl_set_info_flag(uint32_t flags) {
  info_flags = flags; /* read by load_impl when it comes after */
  /* (a later call, from __tgt_set_info_flag, once there are devices) */
  if (impl.set_info_flag != NULL)
    return impl.set_info_flag(flags);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_get_last_error(int32_t id, __tgt_rtl_error *err) {
  if (ready() && impl.get_last_error != NULL)
    return impl.get_last_error(id, err);
  if (err == NULL)
    return OFFLOAD_FAIL;
  memset(err, 0, sizeof *err);
  snprintf(err->message, sizeof err->message, "%s", why);
  return OFFLOAD_SUCCESS;
}

#define FORWARD(ret, name, params, args, fail)                                 \
  ret __tgt_rtl_##name params {                                                \
    if (!ready() || impl.name == NULL)                                         \
      return fail;                                                             \
    return impl.name args;                                                     \
  }
FORWARDED(FORWARD)
#undef FORWARD
