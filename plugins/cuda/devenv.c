/*
 * devenv.c - the globals LLVM's nvptx device runtime reads, which the host
 * plugin is expected to fill in or read. Best effort: each version's device
 * runtime has its own set, and a symbol that is absent from the module is
 * simply not used by that version.
 *
 *   device environment   `omptarget_device_environment` (14-16) or
 *                        `__omp_rtl_device_environment` (17+):
 *                        {u32 DebugKind, NumDevices, DeviceNum,
 *                         DynamicMemSize; then 17+: u64 ClockFrequency,
 *                         IndirectCallTable, IndirectCallTableSize,
 *                         HardwareParallelism}. Only as many bytes as the
 *                        module's global has are written.
 *   kernel environment   `<kernel>_kernel_environment` (17+): the
 *                        configuration {u8 UseGenericStateMachine,
 *                        MayUseNestedParallelism, ExecMode; 18+: i32
 *                        MinThreads, MaxThreads, MinTeams, MaxTeams,
 *                        ReductionDataSize, ReductionBufferLength} then two
 *                        pointers: 24 bytes in 17, 48 bytes from 18 on.
 *                        From 18 on, parameter 0 of the kernel (the `dyn_ptr`
 *                        clang 19 declares) is a KernelLaunchEnvironment
 *                        {u32 ReductionCnt, u32 ReductionIterCnt,
 *                        void *ReductionBuffer} the plugin provides.
 *   `<kernel>_exec_mode` (14-16): one byte, the execution mode.
 * Dynamic shared memory is not offered: DynamicMemSize stays 0 and kernels
 * are launched with no dynamic shared memory.
 *
 * Locking: called under the device's lock with its context current.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

struct device_environment {
  uint32_t debug_kind;
  uint32_t num_devices;
  uint32_t device_num;
  uint32_t dynamic_memory_size;
  uint64_t clock_frequency;
  uint64_t indirect_call_table;
  uint64_t indirect_call_table_size;
  uint64_t hardware_parallelism;
};

#define KERNEL_ENV_17_BYTES 24
#define KERNEL_ENV_18_BYTES 48

/* Looks `name` up; *found is 0 when the module has no such global. */
static int find_global(CUmodule module, const char *name, CUdeviceptr *ptr,
                       size_t *bytes, int *found) {
  const struct cuda_driver *drv = driver_get();
  CUresult rc = drv->cuModuleGetGlobal(ptr, bytes, module, name);
  *found = rc == CUDA_SUCCESS;
  if (rc == CUDA_SUCCESS || rc == CUDA_ERROR_NOT_FOUND)
    return 0;
  return cuda_driver_error(drv, rc, "looking up the global `%s`", name);
}

int devenv_write_device_environment(struct cuda_device *dev,
                                    CUmodule module) {
  LOCK_ASSERT_HELD(&dev->lock);
  static const char *const names[] = {"__omp_rtl_device_environment",
                                      "omptarget_device_environment"};
  const struct cuda_driver *drv = driver_get();
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    CUdeviceptr ptr;
    size_t bytes;
    int found;
    if (find_global(module, names[i], &ptr, &bytes, &found) != 0)
      return -1;
    if (!found)
      continue;
    struct device_environment env = {0};
    env.debug_kind = cuda_settings()->device_rtl_debug;
    env.num_devices = (uint32_t)driver_device_count();
    env.device_num = (uint32_t)dev->id;
    env.clock_frequency = (uint64_t)dev->clock_khz * 1000u;
    env.hardware_parallelism =
        (uint64_t)dev->sm_count * (uint64_t)dev->max_threads_per_sm;
    size_t n = bytes < sizeof env ? bytes : sizeof env;
    CUresult rc = drv->cuMemcpyHtoD(ptr, &env, n);
    if (rc != CUDA_SUCCESS)
      return cuda_driver_error(drv, rc,
                               "device %d: writing %zu bytes of the device "
                               "environment `%s`",
                               dev->id, n, names[i]);
    cuda_info(INFO_PLUGIN_KERNEL,
              "device %d: wrote %zu bytes of `%s` (device %u of %u)", dev->id,
              n, names[i], env.device_num, env.num_devices);
    return 0;
  }
  return 0;
}

static int32_t read_i32(const unsigned char *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

int devenv_read_kernel_environment(struct cuda_device *dev, CUmodule module,
                                   struct cuda_kernel *kernel) {
  LOCK_ASSERT_HELD(&dev->lock);
  const struct cuda_driver *drv = driver_get();
  size_t len = strlen(kernel->name) + sizeof "_kernel_environment";
  char *name = malloc(len);
  if (name == NULL) {
    cuda_error("cuda: device %d: no host memory to look up the environment "
               "of kernel `%s`",
               dev->id, kernel->name);
    return -1;
  }
  int rc = -1, found;
  CUdeviceptr ptr;
  size_t bytes;
  snprintf(name, len, "%s_kernel_environment", kernel->name);
  if (find_global(module, name, &ptr, &bytes, &found) != 0)
    goto out_free;
  if (found) {
    unsigned char env[KERNEL_ENV_18_BYTES] = {0};
    size_t n = bytes < sizeof env ? bytes : sizeof env;
    CUresult cr = drv->cuMemcpyDtoH(env, ptr, n);
    if (cr != CUDA_SUCCESS) {
      cuda_driver_error(drv, cr, "device %d: reading `%s`", dev->id, name);
      goto out_free;
    }
    kernel->exec_mode = n > 2 ? env[2] : 0;
    if (bytes >= KERNEL_ENV_18_BYTES) {
      kernel->has_launch_env = 1;
      kernel->max_threads = read_i32(env + 8);
      kernel->max_teams = read_i32(env + 16);
      kernel->reduction_data_size = read_i32(env + 20);
      kernel->reduction_buffer_length = read_i32(env + 24);
    }
    rc = 0;
    goto out_free;
  }
  snprintf(name, len, "%s_exec_mode", kernel->name);
  if (find_global(module, name, &ptr, &bytes, &found) != 0)
    goto out_free;
  if (found && bytes >= 1) {
    CUresult cr = drv->cuMemcpyDtoH(&kernel->exec_mode, ptr, 1);
    if (cr != CUDA_SUCCESS) {
      cuda_driver_error(drv, cr, "device %d: reading `%s`", dev->id, name);
      goto out_free;
    }
  }
  rc = 0;
out_free:
  free(name);
  return rc;
}
