/*
 * testdouble_kernels.c - the host "kernels" and "device globals" that the
 * CUDA driver test double loads as a module (libtestdouble_kernels.so).
 * Test-only. Each kernel gets the parameter array the plugin built (one
 * pointer per 64-bit value) and returns a CUresult for cuCtxSynchronize.
 * Device memory is host memory in the double, so kernels dereference the
 * values directly.
 */
#include <stdint.h>
#include <string.h>

#include "testdouble.h"

#define EXPORT __attribute__((visibility("default"), used))

static uint64_t param(void **params, int i) {
  uint64_t v;
  memcpy(&v, params[i], sizeof v);
  return v;
}

/* Globals the tests map as declare-target variables. */
EXPORT int gvar[4] = {1, 2, 3, 4};
EXPORT int64_t gsmall = 7; /* 8 bytes; a host entry claiming 12 mismatches */

/* What the last k_record launch saw. */
EXPORT uint64_t recorded_params[4];
EXPORT uint32_t recorded_dims[2];

/* The device runtime's environment (LLVM 17+ layout), written by the plugin
 * at load time. */
EXPORT struct testdouble_device_environment __omp_rtl_device_environment;

/* k_add(int *a, uint64 n): a[i] += 1. */
EXPORT int k_add(void **params, const struct testdouble_launch *launch) {
  (void)launch;
  int *a = (int *)(uintptr_t)param(params, 0);
  uint64_t n = param(params, 1);
  for (uint64_t i = 0; i < n; i++)
    a[i] += 1;
  return 0;
}

/* k_record(p0, p1, p2, p3): keeps the values and the launch shape. */
EXPORT int k_record(void **params, const struct testdouble_launch *launch) {
  for (int i = 0; i < 4; i++)
    recorded_params[i] = param(params, i);
  recorded_dims[0] = launch->grid[0];
  recorded_dims[1] = launch->block[0];
  return 0;
}

/* k_fault(): behaves like a kernel that touched a bad address. */
EXPORT int k_fault(void **params, const struct testdouble_launch *launch) {
  (void)params;
  (void)launch;
  return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */
}

/* k_old: a clang 14-16 generic-mode kernel (`<name>_exec_mode` = GENERIC). */
EXPORT uint8_t k_old_exec_mode = 1;
EXPORT int k_old(void **params, const struct testdouble_launch *launch) {
  (void)params;
  (void)launch;
  return 0;
}

/* k_env: an LLVM 18/19 kernel with a 48-byte kernel environment: generic
 * mode, MaxThreads 256, reductions of 8 bytes x 4 teams. Parameter 0 must
 * be a KernelLaunchEnvironment {u32, u32, void *ReductionBuffer}. */
struct kernel_environment {
  uint8_t use_generic_state_machine, may_use_nested_parallelism, exec_mode;
  int32_t min_threads, max_threads, min_teams, max_teams;
  int32_t reduction_data_size, reduction_buffer_length;
  void *ident, *dynamic_env;
};
EXPORT struct kernel_environment k_env_kernel_environment = {
    1, 0, 1, -1, 256, -1, -1, 8, 4, 0, 0};
EXPORT struct testdouble_env_seen env_seen;
EXPORT int k_env(void **params, const struct testdouble_launch *launch) {
  (void)launch;
  const struct {
    uint32_t count, iterations;
    uint64_t buffer;
  } *env = (const void *)(uintptr_t)param(params, 0);
  memset(&env_seen, 0, sizeof env_seen);
  env_seen.launch_environment = (uint64_t)(uintptr_t)env;
  env_seen.second_param = (uint32_t)param(params, 1);
  if (env == NULL)
    return 700;
  env_seen.reduction_buffer = env->buffer;
  const unsigned char *b = (const unsigned char *)(uintptr_t)env->buffer;
  env_seen.buffer_zeroed = b != NULL;
  for (int i = 0; b && i < 8 * 4; i++)
    env_seen.buffer_zeroed &= b[i] == 0;
  return 0;
}
