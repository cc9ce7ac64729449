/*
 * launch.c - kernel launch in the convention clang uses for nvptx
 * (clang-abi.md section 10): every kernel parameter is a `.param .u64`, so
 * argument i becomes one 64-bit value, tgt_args[i] + tgt_offsets[i]. The
 * leading `dyn_ptr` of clang 19 is already argument 0 (libomptarget adds
 * it); for device runtimes 18+ it must point to a KernelLaunchEnvironment,
 * which this file provides when libomptarget passed NULL (devenv.c).
 *
 * Launches are synchronous: cuLaunchKernel on the context's default stream,
 * then cuCtxSynchronize, so a kernel fault is reported by the call that ran
 * the kernel, with the driver's own words.
 *
 * Locking: none; the kernel record is read-only once loaded and the context
 * is current on the calling thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* KernelLaunchEnvironment of LLVM 18/19's device runtime. */
struct kernel_launch_environment {
  uint32_t reduction_count;
  uint32_t reduction_iteration_count;
  uint64_t reduction_buffer;
};

void launch_dimensions(const struct cuda_device *dev,
                       const struct cuda_kernel *kernel, int32_t num_teams,
                       int32_t thread_limit, unsigned *teams,
                       unsigned *threads) {
  int64_t t = thread_limit > 0 ? thread_limit : CUDA_DEFAULT_THREADS;
  /* Generic mode: the main thread runs in a warp of its own beside the
   * requested workers (what LLVM's CUDA plugin does); the kernel's own
   * bound still wins. */
  if (thread_limit > 0 && kernel->exec_mode == CUDA_EXEC_MODE_GENERIC)
    t += dev->warp_size > 0 ? dev->warp_size : 32;
  if (kernel->max_threads > 0 && t > kernel->max_threads)
    t = kernel->max_threads;
  int64_t block_limit = dev->max_threads_per_block;
  if (dev->max_block_dim_x > 0 && dev->max_block_dim_x < block_limit)
    block_limit = dev->max_block_dim_x;
  if (block_limit > 0 && t > block_limit)
    t = block_limit;
  int64_t n = num_teams > 0 ? num_teams : dev->sm_count;
  if (kernel->max_teams > 0 && n > kernel->max_teams)
    n = kernel->max_teams;
  if (dev->max_grid_dim_x > 0 && n > dev->max_grid_dim_x)
    n = dev->max_grid_dim_x;
  *teams = n > 0 ? (unsigned)n : 1;
  *threads = t > 0 ? (unsigned)t : 1;
}

/* Device memory this launch allocated for the device runtime. */
struct launch_extras {
  CUdeviceptr environment;
  CUdeviceptr reduction_buffer;
};

static void free_extras(const struct launch_extras *x) {
  const struct cuda_driver *drv = driver_get();
  if (x->environment)
    drv->cuMemFree(x->environment);
  if (x->reduction_buffer)
    drv->cuMemFree(x->reduction_buffer);
}

static int make_launch_environment(struct cuda_device *dev,
                                   const struct cuda_kernel *kernel,
                                   struct launch_extras *x) {
  const struct cuda_driver *drv = driver_get();
  struct kernel_launch_environment env = {0};
  CUresult rc;
  if (kernel->reduction_data_size > 0 && kernel->reduction_buffer_length > 0) {
    size_t bytes = (size_t)kernel->reduction_data_size *
                   (size_t)kernel->reduction_buffer_length;
    rc = drv->cuMemAlloc(&x->reduction_buffer, bytes);
    if (rc == CUDA_SUCCESS)
      rc = drv->cuMemsetD8(x->reduction_buffer, 0, bytes);
    if (rc != CUDA_SUCCESS)
      return cuda_driver_error(drv, rc,
                               "device %d: the %zu-byte reduction buffer of "
                               "kernel `%s`",
                               dev->id, bytes, kernel->name);
    env.reduction_buffer = (uint64_t)x->reduction_buffer;
  }
  rc = drv->cuMemAlloc(&x->environment, sizeof env);
  if (rc == CUDA_SUCCESS)
    rc = drv->cuMemcpyHtoD(x->environment, &env, sizeof env);
  if (rc != CUDA_SUCCESS)
    return cuda_driver_error(drv, rc,
                             "device %d: the launch environment of kernel "
                             "`%s`",
                             dev->id, kernel->name);
  return 0;
}

int launch_kernel(struct cuda_device *dev, const struct cuda_kernel *kernel,
                  void **args, const ptrdiff_t *offsets, int32_t arg_num,
                  int32_t num_teams, int32_t thread_limit) {
  const struct cuda_driver *drv = driver_get();
  size_t n = (size_t)arg_num;
  uint64_t *values = calloc(n ? n : 1, sizeof *values);
  void **params = calloc(n ? n : 1, sizeof *params);
  struct launch_extras extras = {0, 0};
  int rc = -1;
  if (values == NULL || params == NULL) {
    cuda_error("cuda: device %d: no host memory for the %d arguments of "
               "kernel `%s`",
               dev->id, arg_num, kernel->name);
    goto out_free;
  }
  for (size_t i = 0; i < n; i++) {
    /* literals are values, not pointers: plain integer arithmetic */
    values[i] = (uint64_t)(uintptr_t)args[i] +
                (uint64_t)(offsets ? offsets[i] : 0);
    params[i] = &values[i];
  }
  if (kernel->has_launch_env && n >= 1 && values[0] == 0) {
    if (make_launch_environment(dev, kernel, &extras) != 0)
      goto out_extras;
    values[0] = (uint64_t)extras.environment;
  }
  unsigned teams, threads;
  launch_dimensions(dev, kernel, num_teams, thread_limit, &teams, &threads);
  cuda_info(INFO_PLUGIN_KERNEL,
            "device %d: launching kernel `%s` (%s mode) with %u teams x %u "
            "threads, %d arguments (num_teams %d, thread_limit %d)",
            dev->id, kernel->name,
            kernel->exec_mode == CUDA_EXEC_MODE_GENERIC ? "generic"
            : kernel->exec_mode == CUDA_EXEC_MODE_SPMD  ? "SPMD"
            : kernel->exec_mode ? "generic-SPMD"
                                : "unknown",
            teams, threads, arg_num, num_teams, thread_limit);
  CUresult cr = drv->cuLaunchKernel(kernel->function, teams, 1, 1, threads, 1,
                                    1, 0, NULL, n ? params : NULL, NULL);
  if (cr != CUDA_SUCCESS) {
    cuda_driver_error(drv, cr,
                      "device %d: launching kernel `%s` with %u teams x %u "
                      "threads",
                      dev->id, kernel->name, teams, threads);
    goto out_extras;
  }
  cr = drv->cuCtxSynchronize();
  if (cr != CUDA_SUCCESS) {
    cuda_driver_error(drv, cr, "device %d: kernel `%s`", dev->id,
                      kernel->name);
    goto out_extras;
  }
  rc = 0;
out_extras:
  free_extras(&extras);
out_free:
  free(values);
  free(params);
  return rc;
}
