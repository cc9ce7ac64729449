/*
 * cuda_internal.h - internals of the CUDA plugin (libomptarget.rtl.cuda.so),
 * shared by its files.
 *
 * The plugin never links against libcuda: driver.c dlopens libcuda.so.1 (or
 * the file named by SIMTARGET_CUDA_DRIVER, a test hook) and resolves the few
 * cu* entry points listed in CUDA_DRIVER_FUNCTIONS, typed from
 * cuda_driver_api.h (cuda.h itself when the Makefile found it).
 *
 * Locks (always taken in this order):
 *   plugin_state_lock (plugin.c)  the driver table, the device array and
 *                                 the reason there are no devices, while
 *                                 they are set up or torn down.
 *   cuda_device.lock              one device's context (setup/release), its
 *                                 loaded images and kernel records, its
 *                                 list of pinned host allocations.
 * Transfers and launches take no plugin lock: the driver is thread-safe and
 * the primary context is made current per calling thread.
 */
#ifndef SIMTARGET_CUDA_INTERNAL_H
#define SIMTARGET_CUDA_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_driver_api.h"
#include "omptarget.h"
#include "omptarget_plugin.h"

#include "lock_check.h"

#define HIDDEN __attribute__((visibility("hidden")))
#define CUDA_MAX_DEVICES 64

/* ---------------------------------------------------------------- driver.c
 * X(required, function): the cu* entry points the plugin uses. The symbol
 * looked up is the one cuda_driver_api.h maps the name to (cuMemAlloc ->
 * cuMemAlloc_v2, as cuda.h does),
 * so the pointer types and the symbol names cannot drift apart. Optional
 * ones may be missing from an old driver; the feature using them then says
 * so. */
#define CUDA_DRIVER_FUNCTIONS(X)                                               \
  X(1, cuInit)                                                                 \
  X(1, cuDriverGetVersion)                                                     \
  X(1, cuGetErrorName)                                                         \
  X(1, cuGetErrorString)                                                       \
  X(1, cuDeviceGetCount)                                                       \
  X(1, cuDeviceGet)                                                            \
  X(1, cuDeviceGetName)                                                        \
  X(1, cuDeviceGetAttribute)                                                   \
  X(1, cuDeviceTotalMem)                                                       \
  X(1, cuDevicePrimaryCtxRetain)                                               \
  X(1, cuDevicePrimaryCtxRelease)                                              \
  X(1, cuCtxSetCurrent)                                                        \
  X(1, cuCtxSynchronize)                                                       \
  X(1, cuModuleLoadDataEx)                                                     \
  X(1, cuModuleUnload)                                                         \
  X(1, cuModuleGetFunction)                                                    \
  X(1, cuModuleGetGlobal)                                                      \
  X(1, cuMemAlloc)                                                             \
  X(1, cuMemFree)                                                              \
  X(1, cuMemcpyHtoD)                                                           \
  X(1, cuMemcpyDtoH)                                                           \
  X(1, cuMemcpyDtoD)                                                           \
  X(1, cuMemsetD8)                                                             \
  X(1, cuLaunchKernel)                                                         \
  X(0, cuMemAllocHost)                                                         \
  X(0, cuMemFreeHost)                                                          \
  X(0, cuMemAllocManaged)                                                      \
  X(0, cuMemcpyPeer)                                                           \
  X(0, cuDeviceCanAccessPeer)

struct cuda_driver {
  void *handle;
  char path[256]; /* what was opened, for messages */
#define CUDA_DRIVER_FIELD(req, fn) __typeof__(&fn) fn;
  CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_FIELD)
#undef CUDA_DRIVER_FIELD
};

/* Opens the driver and resolves every function. Returns 0, or -1 with the
 * reason in `why` and nothing left open. */
HIDDEN int driver_open(struct cuda_driver *drv, char *why, size_t why_len);
/* The plugin's driver table and device count (driver.c), filled by plugin.c
 * under plugin_state_lock at init, valid between init and deinit. */
HIDDEN extern struct cuda_driver cuda_driver_loaded;
HIDDEN extern int32_t cuda_device_count;
HIDDEN const struct cuda_driver *driver_get(void);
HIDDEN int32_t driver_device_count(void);
HIDDEN void driver_close(struct cuda_driver *drv);
/* "CUDA_ERROR_OUT_OF_MEMORY: out of memory", in the driver's own words. */
HIDDEN void driver_result_text(const struct cuda_driver *drv, CUresult rc,
                               char *buf, size_t len);

/* ---------------------------------------------------------------- errors.c
 * The cause of this thread's last failure (get_last_error), and the
 * LIBOMPTARGET_INFO flags (environment, then set_info_flag). */
HIDDEN void cuda_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Records "<what> failed: <driver text>" and returns -1. */
HIDDEN int cuda_driver_error(const struct cuda_driver *drv, CUresult rc,
                             const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
HIDDEN void cuda_error_take(__tgt_rtl_error *out);
/* settings.c: the environment, read and checked once. */
struct cuda_settings {
  uint32_t info_flags;       /* LIBOMPTARGET_INFO at start */
  uint32_t device_rtl_debug; /* LIBOMPTARGET_DEVICE_RTL_DEBUG */
  char driver_path[256];     /* SIMTARGET_CUDA_DRIVER, "" when unset */
};
HIDDEN const struct cuda_settings *cuda_settings(void);
/* Reads them again: a new plugin life. Caller holds plugin_state_lock. */
HIDDEN void cuda_settings_reload(void);

HIDDEN uint32_t cuda_info_flags(void);
HIDDEN void cuda_set_info_flags(uint32_t flags);
/* Prints "omptarget info: cuda: ..." when any of `bits` is set. */
HIDDEN void cuda_info(uint32_t bits, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ----------------------------------------------------------------- image.c
 * What a device image holds, found without the driver. */
enum cuda_image_kind {
  CUDA_IMAGE_NONE = 0, /* not for CUDA */
  CUDA_IMAGE_CUBIN,    /* ELF64, e_machine EM_CUDA */
  CUDA_IMAGE_PTX,      /* PTX text, JIT-compiled by the driver */
  CUDA_IMAGE_FATBIN,   /* a fatbinary the driver picks from */
};
struct cuda_image_payload {
  enum cuda_image_kind kind;
  const unsigned char *bytes; /* inside the caller's image */
  size_t size;
};
/* Classifies the image (raw, or the OpenMP image for an nvptx64 triple in
 * an OffloadBinary container). Returns 0 with the payload, or -1 with the
 * reason in `why` (also for images that are simply not CUDA's). */
HIDDEN int image_classify(const __tgt_device_image *image,
                          struct cuda_image_payload *out, char *why,
                          size_t why_len);
HIDDEN const char *image_kind_name(enum cuda_image_kind kind);

/* ---------------------------------------------------------------- devenv.c
 * What LLVM's nvptx device runtime expects the host to set up (best effort:
 * a symbol that is absent is simply not needed by that version). */
struct cuda_device;
struct cuda_kernel;
/* Writes the device environment global (`__omp_rtl_device_environment`,
 * 17+, or `omptarget_device_environment`, 14-16) when the module has one.
 * Returns 0, or -1 with the error recorded. */
HIDDEN int devenv_write_device_environment(struct cuda_device *dev,
                                           CUmodule module);
/* Reads the kernel's execution mode and launch bounds from
 * `<name>_kernel_environment` (17+) or `<name>_exec_mode` (14-16). */
HIDDEN int devenv_read_kernel_environment(struct cuda_device *dev,
                                          CUmodule module,
                                          struct cuda_kernel *kernel);

/* ---------------------------------------------------------------- plugin.c */
/* Execution modes of LLVM's device runtime (OMPTgtExecModeFlags). */
#define CUDA_EXEC_MODE_GENERIC 0x1u
#define CUDA_EXEC_MODE_SPMD 0x2u

struct cuda_kernel {
  CUfunction function;
  const char *name; /* owned by its cuda_image */
  int32_t device_id;
  uint8_t exec_mode;       /* 0 when the image does not say */
  int has_launch_env;      /* 18+: parameter 0 is a KernelLaunchEnvironment */
  int32_t max_threads;     /* from the kernel environment; <= 0: unknown */
  int32_t max_teams;
  int32_t reduction_data_size;
  int32_t reduction_buffer_length;
};

struct cuda_image;
struct host_allocation;

struct cuda_device {
  int32_t id;
  CUdevice handle;
  pthread_mutex_t lock; /* see the top of this file */
  int context_ready;    /* primary context retained */
  CUcontext context;
  char name[128];
  size_t total_memory;
  int sm_count, max_threads_per_block, max_block_dim_x, max_grid_dim_x;
  int warp_size, clock_khz, max_threads_per_sm, cc_major, cc_minor;
  struct cuda_image *images;
  struct host_allocation *host_allocations;
};

/* The device, its primary context retained and made current on this
 * thread; NULL with the error recorded. */
HIDDEN struct cuda_device *plugin_enter_device(int32_t id);

/* --------------------------------------------------------------- modules.c
 * Under the device's lock, with its context current. */
/* Loads the image as a module and builds its table (one entry per host
 * entry, same order; NULL where the module lacks the symbol). NULL on
 * failure with the error recorded. */
HIDDEN __tgt_target_table *modules_load(struct cuda_device *dev,
                                        const __tgt_device_image *image);
HIDDEN int modules_unload(struct cuda_device *dev,
                          const __tgt_device_image *image);
HIDDEN void modules_unload_all(struct cuda_device *dev);
/* The kernel record `entry` points to, if it is one of this device's. */
HIDDEN const struct cuda_kernel *modules_find_kernel(struct cuda_device *dev,
                                                     const void *entry);

/* ---------------------------------------------------------------- launch.c
 * No lock; the context is current. */
/* Grid and block size for a launch: num_teams/thread_limit when positive,
 * else the number of SMs and CUDA_DEFAULT_THREADS; one more warp for the
 * main thread of a generic-mode kernel; clamped to the kernel's bounds and
 * the device's limits. */
#define CUDA_DEFAULT_THREADS 128
HIDDEN void launch_dimensions(const struct cuda_device *dev,
                              const struct cuda_kernel *kernel,
                              int32_t num_teams, int32_t thread_limit,
                              unsigned *teams, unsigned *threads);
/* Launches with every argument as one 64-bit parameter and waits for the
 * kernel. Returns 0, or -1 with the driver's error recorded. */
HIDDEN int launch_kernel(struct cuda_device *dev,
                         const struct cuda_kernel *kernel, void **args,
                         const ptrdiff_t *offsets, int32_t arg_num,
                         int32_t num_teams, int32_t thread_limit);

#endif
