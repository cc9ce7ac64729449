/*
 * plugin.c - the __tgt_rtl_* interface of the CUDA plugin: plugin and
 * device lifecycle (one primary context per device), memory and transfers.
 * Images are in modules.c, launches in launch.c.
 *
 * With no driver, a driver that fails cuInit, or no GPU, the plugin still
 * loads and reports zero devices; the reason is printed under
 * LIBOMPTARGET_INFO (any bit) and kept for get_last_error.
 *
 * Locking: `plugin_state_lock` guards `state_ready`, `driver`, `devices`,
 * `cuda_device_count` and `no_device_reason` while init/deinit change them;
 * between the two they are read without a lock. Each device's `lock` guards
 * its context setup, images and pinned host allocations.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* A cuMemAllocHost block: freed with cuMemFreeHost, not cuMemFree. */
struct host_allocation {
  struct host_allocation *next;
  void *ptr;
};

static pthread_mutex_t plugin_state_lock = PTHREAD_MUTEX_INITIALIZER;
static int state_ready;
/* The driver table and the device count live in driver->c, below the files
 * that use them (driver_get, driver_device_count); this file fills them. */
static struct cuda_driver *const driver = &cuda_driver_loaded;
static struct cuda_device *devices;
static char no_device_reason[400];

static void set_no_devices(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void set_no_devices(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(no_device_reason, sizeof no_device_reason, fmt, ap);
  va_end(ap);
  cuda_device_count = 0;
}

/* Under plugin_state_lock. Never fails: problems mean zero devices. */
static void state_init_locked(void) {
  LOCK_ASSERT_HELD(&plugin_state_lock);
  if (state_ready)
    return;
  state_ready = 1;
  no_device_reason[0] = '\0';
  cuda_settings_reload();
  char why[sizeof no_device_reason];
  if (driver_open(driver, why, sizeof why) != 0) {
    set_no_devices("%s", why);
    return;
  }
  char text[200];
  CUresult rc = driver->cuInit(0);
  if (rc != CUDA_SUCCESS) {
    driver_result_text(driver, rc, text, sizeof text);
    set_no_devices("cuInit failed in %s: %s", driver->path, text);
    goto out_close;
  }
  int count = 0;
  rc = driver->cuDeviceGetCount(&count);
  if (rc != CUDA_SUCCESS) {
    driver_result_text(driver, rc, text, sizeof text);
    set_no_devices("cuDeviceGetCount failed: %s", text);
    goto out_close;
  }
  if (count <= 0) {
    set_no_devices("the CUDA driver %s sees no GPU", driver->path);
    goto out_close;
  }
  if (count > CUDA_MAX_DEVICES)
    count = CUDA_MAX_DEVICES; /* the rest are not offered */
  devices = calloc((size_t)count, sizeof *devices);
  if (devices == NULL) {
    set_no_devices("no host memory for %d device records", count);
    goto out_close;
  }
  for (int i = 0; i < count; i++) {
    devices[i].id = i;
    pthread_mutex_init(&devices[i].lock, NULL);
    rc = driver->cuDeviceGet(&devices[i].handle, i);
    if (rc != CUDA_SUCCESS) {
      driver_result_text(driver, rc, text, sizeof text);
      set_no_devices("cuDeviceGet(%d) failed: %s", i, text);
      free(devices);
      devices = NULL;
      goto out_close;
    }
  }
  cuda_device_count = count;
  return;

out_close:
  driver_close(driver);
}

/* With no device, the plugin says nothing itself: libomptarget asks
 * get_last_error and says the reason once, under LIBOMPTARGET_INFO 0x10. */
static void state_init(void) {
  pthread_mutex_lock(&plugin_state_lock);
  state_init_locked();
  pthread_mutex_unlock(&plugin_state_lock);
}

static void device_release_locked(struct cuda_device *dev) {
  LOCK_ASSERT_HELD(&dev->lock);
  if (!dev->context_ready)
    return;
  if (driver->cuCtxSetCurrent(dev->context) == CUDA_SUCCESS)
    modules_unload_all(dev);
  while (dev->host_allocations != NULL) {
    struct host_allocation *h = dev->host_allocations;
    dev->host_allocations = h->next;
    if (driver->cuMemFreeHost != NULL)
      driver->cuMemFreeHost(h->ptr);
    free(h);
  }
  driver->cuCtxSetCurrent(NULL);
  driver->cuDevicePrimaryCtxRelease(dev->handle);
  dev->context_ready = 0;
  dev->context = NULL;
}

static int query_attribute(struct cuda_device *dev, CUdevice_attribute attr,
                           const char *what, int *out) {
  CUresult rc = driver->cuDeviceGetAttribute(out, attr, dev->handle);
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(driver, rc, "device %d: querying %s", dev->id,
                             what);
  return 0;
}

/* Under dev->lock: retain the primary context and learn the limits. */
static int device_setup_locked(struct cuda_device *dev) {
  LOCK_ASSERT_HELD(&dev->lock);
  if (dev->context_ready)
    return 0;
  CUresult rc = driver->cuDevicePrimaryCtxRetain(&dev->context, dev->handle);
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(driver, rc,
                             "device %d: retaining its primary context",
                             dev->id);
  rc = driver->cuCtxSetCurrent(dev->context);
  if (rc != CUDA_SUCCESS) {
    cuda_driver_error(driver, rc, "device %d: making its context current",
                      dev->id);
    goto out_release;
  }
  if (query_attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                      "the number of SMs", &dev->sm_count) != 0 ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                      "the threads per block", &dev->max_threads_per_block) ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                      "the block size", &dev->max_block_dim_x) ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                      "the grid size", &dev->max_grid_dim_x) ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE, "the warp size",
                      &dev->warp_size) ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "the clock rate",
                      &dev->clock_khz) ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                      "the threads per SM", &dev->max_threads_per_sm) ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                      "the compute capability", &dev->cc_major) ||
      query_attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                      "the compute capability", &dev->cc_minor))
    goto out_release;
  if (driver->cuDeviceGetName(dev->name, (int)sizeof dev->name, dev->handle) !=
      CUDA_SUCCESS)
    snprintf(dev->name, sizeof dev->name, "(unnamed)");
  dev->name[sizeof dev->name - 1] = '\0';
  if (driver->cuDeviceTotalMem(&dev->total_memory, dev->handle) !=
      CUDA_SUCCESS)
    dev->total_memory = 0;
  dev->context_ready = 1;
  return 0;

out_release:
  driver->cuCtxSetCurrent(NULL);
  driver->cuDevicePrimaryCtxRelease(dev->handle);
  dev->context = NULL;
  return -1;
}

static struct cuda_device *device_get(int32_t id) {
  state_init();
  if (id < 0 || id >= cuda_device_count) {
    cuda_error("cuda: device %d does not exist (%d device%s%s%s)", id,
               cuda_device_count, cuda_device_count == 1 ? "" : "s",
               cuda_device_count ? "" : ": ", cuda_device_count ? "" : no_device_reason);
    return NULL;
  }
  return &devices[id];
}

struct cuda_device *plugin_enter_device(int32_t id) {
  struct cuda_device *dev = device_get(id);
  if (dev == NULL)
    return NULL;
  pthread_mutex_lock(&dev->lock);
  int rc = device_setup_locked(dev);
  CUcontext context = dev->context;
  pthread_mutex_unlock(&dev->lock);
  if (rc != 0)
    return NULL;
  /* The current context is per host thread in CUDA. */
  CUresult cr = driver->cuCtxSetCurrent(context);
  if (cr != CUDA_SUCCESS) {
    cuda_driver_error(driver, cr, "device %d: making its context current",
                      id);
    return NULL;
  }
  return dev;
}

/* ---------------------------------------------------------------- lifecycle */

int32_t __tgt_rtl_abi_version(void) { return SIMTARGET_PLUGIN_ABI_VERSION; }

int32_t __tgt_rtl_init_plugin(void) {
  state_init();
  return OFFLOAD_SUCCESS; /* zero devices is not a failure of the plugin */
}

int32_t __tgt_rtl_deinit_plugin(void) {
  pthread_mutex_lock(&plugin_state_lock);
  for (int32_t i = 0; i < cuda_device_count; i++) {
    pthread_mutex_lock(&devices[i].lock);
    device_release_locked(&devices[i]);
    pthread_mutex_unlock(&devices[i].lock);
    pthread_mutex_destroy(&devices[i].lock);
  }
  free(devices);
  devices = NULL;
  cuda_device_count = 0;
  driver_close(driver);
  state_ready = 0;
  pthread_mutex_unlock(&plugin_state_lock);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_number_of_devices(void) {
  state_init();
  if (cuda_device_count == 0)
    cuda_error("cuda: no CUDA devices: %s", no_device_reason);
  return cuda_device_count;
}

int32_t __tgt_rtl_init_device(int32_t id) {
  return plugin_enter_device(id) ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

int32_t __tgt_rtl_deinit_device(int32_t id) {
  struct cuda_device *dev = device_get(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  pthread_mutex_lock(&dev->lock);
  device_release_locked(dev);
  pthread_mutex_unlock(&dev->lock);
  return OFFLOAD_SUCCESS;
}

/* Discrete GPU memory is a separate address space: host pointers cannot be
 * handed to kernels, so these requirements are refused, loudly. */
int64_t __tgt_rtl_init_requires(int64_t requires_flags) {
  int64_t unsupported = requires_flags & (OMP_REQ_UNIFIED_SHARED_MEMORY |
                                          OMP_REQ_UNIFIED_ADDRESS);
  if (unsupported) {
    fprintf(stderr,
            "cuda: `requires%s%s` is not supported by this plugin: device "
            "memory is a separate address space\n",
            (unsupported & OMP_REQ_UNIFIED_SHARED_MEMORY)
                ? " unified_shared_memory"
                : "",
            (unsupported & OMP_REQ_UNIFIED_ADDRESS) ? " unified_address" : "");
    cuda_error("cuda: requires unified_shared_memory/unified_address is not "
               "supported");
  }
  return requires_flags & ~unsupported;
}

/* ---------------------------------------------------------------- images */

int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *image) {
  struct cuda_image_payload payload;
  char why[300];
  if (image_classify(image, &payload, why, sizeof why) != 0) {
    cuda_error("cuda: %s", why);
    return 0;
  }
  return 1;
}

__tgt_target_table *__tgt_rtl_load_binary(int32_t id,
                                          __tgt_device_image *image) {
  struct cuda_device *dev = plugin_enter_device(id);
  if (dev == NULL)
    return NULL;
  pthread_mutex_lock(&dev->lock);
  __tgt_target_table *table = modules_load(dev, image);
  pthread_mutex_unlock(&dev->lock);
  return table;
}

int32_t __tgt_rtl_unload_binary(int32_t id, __tgt_device_image *image) {
  struct cuda_device *dev = plugin_enter_device(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  pthread_mutex_lock(&dev->lock);
  int rc = modules_unload(dev, image);
  pthread_mutex_unlock(&dev->lock);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

/* ---------------------------------------------------------------- memory */

static const char *alloc_kind_name(int32_t kind) {
  switch (kind) {
  case TARGET_ALLOC_DEVICE: return "device";
  case TARGET_ALLOC_HOST: return "host";
  case TARGET_ALLOC_SHARED: return "shared";
  case TARGET_ALLOC_DEFAULT: return "default";
  default: return "unknown";
  }
}

void *__tgt_rtl_data_alloc(int32_t id, int64_t size, void *hst_ptr,
                           int32_t kind) {
  (void)hst_ptr;
  if (size <= 0) {
    cuda_error("cuda: device %d: cannot allocate %" PRId64 " bytes", id,
               size);
    return NULL;
  }
  struct cuda_device *dev = plugin_enter_device(id);
  if (dev == NULL)
    return NULL;
  CUresult rc;
  switch (kind) {
  case TARGET_ALLOC_DEVICE:
  case TARGET_ALLOC_DEFAULT: {
    CUdeviceptr ptr = 0;
    rc = driver->cuMemAlloc(&ptr, (size_t)size);
    if (rc != CUDA_SUCCESS) {
      cuda_driver_error(driver, rc,
                        "device %d: cuMemAlloc of %" PRId64 " bytes", id,
                        size);
      return NULL;
    }
    return (void *)(uintptr_t)ptr;
  }
  case TARGET_ALLOC_SHARED: {
    if (driver->cuMemAllocManaged == NULL)
      break;
    CUdeviceptr ptr = 0;
    rc = driver->cuMemAllocManaged(&ptr, (size_t)size, CU_MEM_ATTACH_GLOBAL);
    if (rc != CUDA_SUCCESS) {
      cuda_driver_error(driver, rc,
                        "device %d: cuMemAllocManaged of %" PRId64 " bytes",
                        id, size);
      return NULL;
    }
    return (void *)(uintptr_t)ptr;
  }
  case TARGET_ALLOC_HOST: {
    if (driver->cuMemAllocHost == NULL || driver->cuMemFreeHost == NULL)
      break;
    struct host_allocation *h = malloc(sizeof *h);
    if (h == NULL) {
      cuda_error("cuda: device %d: no host memory to track a pinned block",
                 id);
      return NULL;
    }
    rc = driver->cuMemAllocHost(&h->ptr, (size_t)size);
    if (rc != CUDA_SUCCESS) {
      free(h);
      cuda_driver_error(driver, rc,
                        "device %d: cuMemAllocHost of %" PRId64 " bytes", id,
                        size);
      return NULL;
    }
    pthread_mutex_lock(&dev->lock);
    h->next = dev->host_allocations;
    dev->host_allocations = h;
    pthread_mutex_unlock(&dev->lock);
    return h->ptr;
  }
  default:
    cuda_error("cuda: device %d: unknown allocation kind %d", id, kind);
    return NULL;
  }
  cuda_error("cuda: device %d: %s allocations need a driver function that %s "
             "lacks",
             id, alloc_kind_name(kind), driver->path);
  return NULL;
}

int32_t __tgt_rtl_data_delete(int32_t id, void *tgt_ptr) {
  struct cuda_device *dev = plugin_enter_device(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  struct host_allocation *pinned = NULL;
  pthread_mutex_lock(&dev->lock);
  for (struct host_allocation **link = &dev->host_allocations; *link;
       link = &(*link)->next)
    if ((*link)->ptr == tgt_ptr) {
      pinned = *link;
      *link = pinned->next;
      break;
    }
  pthread_mutex_unlock(&dev->lock);
  CUresult rc;
  if (pinned != NULL) {
    free(pinned);
    rc = driver->cuMemFreeHost(tgt_ptr);
  } else {
    rc = driver->cuMemFree((CUdeviceptr)(uintptr_t)tgt_ptr);
  }
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(driver, rc, "device %d: freeing %p", id,
                             tgt_ptr),
           OFFLOAD_FAIL;
  return OFFLOAD_SUCCESS;
}

static int check_copy_size(int32_t id, int64_t size, const char *what) {
  if (size < 0) {
    cuda_error("cuda: device %d: %s of %" PRId64 " bytes", id, what, size);
    return -1;
  }
  return 0;
}

int32_t __tgt_rtl_data_submit(int32_t id, void *tgt_ptr, void *hst_ptr,
                              int64_t size) {
  if (check_copy_size(id, size, "copy to the device") != 0)
    return OFFLOAD_FAIL;
  if (size == 0)
    return OFFLOAD_SUCCESS;
  if (plugin_enter_device(id) == NULL)
    return OFFLOAD_FAIL;
  CUresult rc =
      driver->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)tgt_ptr, hst_ptr, (size_t)size);
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(driver, rc,
                             "device %d: copying %" PRId64
                             " bytes from host %p to device %p",
                             id, size, hst_ptr, tgt_ptr),
           OFFLOAD_FAIL;
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_data_retrieve(int32_t id, void *hst_ptr, void *tgt_ptr,
                                int64_t size) {
  if (check_copy_size(id, size, "copy from the device") != 0)
    return OFFLOAD_FAIL;
  if (size == 0)
    return OFFLOAD_SUCCESS;
  if (plugin_enter_device(id) == NULL)
    return OFFLOAD_FAIL;
  CUresult rc =
      driver->cuMemcpyDtoH(hst_ptr, (CUdeviceptr)(uintptr_t)tgt_ptr, (size_t)size);
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(driver, rc,
                             "device %d: copying %" PRId64
                             " bytes from device %p to host %p",
                             id, size, tgt_ptr, hst_ptr),
           OFFLOAD_FAIL;
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_is_data_exchangable(int32_t src_id, int32_t dst_id) {
  state_init();
  if (src_id < 0 || dst_id < 0 || src_id >= cuda_device_count ||
      dst_id >= cuda_device_count)
    return 0;
  return src_id == dst_id || driver->cuMemcpyPeer != NULL;
}

int32_t __tgt_rtl_data_exchange(int32_t src_id, void *src_ptr, int32_t dst_id,
                                void *dst_ptr, int64_t size) {
  if (check_copy_size(src_id, size, "device-to-device copy") != 0)
    return OFFLOAD_FAIL;
  if (size == 0)
    return OFFLOAD_SUCCESS;
  struct cuda_device *dst = plugin_enter_device(dst_id);
  struct cuda_device *src = dst ? plugin_enter_device(src_id) : NULL;
  if (src == NULL)
    return OFFLOAD_FAIL;
  CUresult rc;
  if (src == dst) {
    rc = driver->cuMemcpyDtoD((CUdeviceptr)(uintptr_t)dst_ptr,
                             (CUdeviceptr)(uintptr_t)src_ptr, (size_t)size);
  } else if (driver->cuMemcpyPeer != NULL) {
    rc = driver->cuMemcpyPeer((CUdeviceptr)(uintptr_t)dst_ptr, dst->context,
                             (CUdeviceptr)(uintptr_t)src_ptr, src->context,
                             (size_t)size);
  } else {
    cuda_error("cuda: copies between devices %d and %d need cuMemcpyPeer, "
               "which %s lacks",
               src_id, dst_id, driver->path);
    return OFFLOAD_FAIL;
  }
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(driver, rc,
                             "copying %" PRId64
                             " bytes from device %d %p to device %d %p",
                             size, src_id, src_ptr, dst_id, dst_ptr),
           OFFLOAD_FAIL;
  return OFFLOAD_SUCCESS;
}

/* ---------------------------------------------------------------- launch */

int32_t __tgt_rtl_run_target_team_region(int32_t id, void *tgt_entry_ptr,
                                         void **tgt_args,
                                         ptrdiff_t *tgt_offsets,
                                         int32_t arg_num, int32_t num_teams,
                                         int32_t thread_limit,
                                         uint64_t loop_tripcount) {
  (void)loop_tripcount;
  struct cuda_device *dev = plugin_enter_device(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  if (arg_num < 0 || (arg_num > 0 && tgt_args == NULL)) {
    cuda_error("cuda: device %d: kernel launch with %d arguments at %p", id,
               arg_num, (void *)tgt_args);
    return OFFLOAD_FAIL;
  }
  pthread_mutex_lock(&dev->lock);
  const struct cuda_kernel *kernel = modules_find_kernel(dev, tgt_entry_ptr);
  pthread_mutex_unlock(&dev->lock);
  if (kernel == NULL) {
    cuda_error("cuda: device %d: %p is not a kernel loaded on this device", id,
               tgt_entry_ptr);
    return OFFLOAD_FAIL;
  }
  /* The record stays valid: libomptarget does not unload an image while a
   * region of it runs. */
  return launch_kernel(dev, kernel, tgt_args, tgt_offsets, arg_num, num_teams,
                       thread_limit) == 0
             ? OFFLOAD_SUCCESS
             : OFFLOAD_FAIL;
}

/* A `target` without teams: one team, default threads (the device runtime
 * runs the region's parallel parts on them). */
int32_t __tgt_rtl_run_target_region(int32_t id, void *tgt_entry_ptr,
                                    void **tgt_args, ptrdiff_t *tgt_offsets,
                                    int32_t arg_num) {
  return __tgt_rtl_run_target_team_region(id, tgt_entry_ptr, tgt_args,
                                          tgt_offsets, arg_num, 1, 0, 0);
}

/* ---------------------------------------------------------------- reports */

int32_t __tgt_rtl_get_last_error(int32_t id, __tgt_rtl_error *err) {
  (void)id; /* kept per host thread, which is what libomptarget asks about */
  if (err == NULL)
    return OFFLOAD_FAIL;
  cuda_error_take(err);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_set_info_flag(uint32_t flags) {
  cuda_set_info_flags(flags);
  return OFFLOAD_SUCCESS;
}

int32_t __tgt_rtl_print_device_info(int32_t id) {
  struct cuda_device *dev = plugin_enter_device(id);
  if (dev == NULL)
    return OFFLOAD_FAIL;
  int version = 0;
  if (driver->cuDriverGetVersion(&version) != CUDA_SUCCESS)
    version = 0;
  printf("    cuda device %d: %s (compute capability %d.%d)\n", id, dev->name,
         dev->cc_major, dev->cc_minor);
  printf("      driver:          %s, CUDA %d.%d\n", driver->path,
         version / 1000, (version % 1000) / 10);
  printf("      memory:          %zu bytes\n", dev->total_memory);
  printf("      SMs:             %d (%d threads each, clock %d kHz)\n",
         dev->sm_count, dev->max_threads_per_sm, dev->clock_khz);
  printf("      block / grid:    at most %d threads per block, %d blocks\n",
         dev->max_threads_per_block, dev->max_grid_dim_x);
  printf("      default launch:  %d teams x %d threads\n", dev->sm_count,
         CUDA_DEFAULT_THREADS);
  return OFFLOAD_SUCCESS;
}
