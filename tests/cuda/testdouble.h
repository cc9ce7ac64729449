/*
 * testdouble.h - what the CUDA driver test double (libcuda_testdouble.so),
 * its host "kernels" (libtestdouble_kernels.so) and the plugin tests share.
 * Test-only: none of this ships.
 *
 * The double implements the cu* functions the CUDA plugin resolves, on host
 * memory: device memory is malloc, a module is a host shared object named
 * inside a fake image (the text TESTDOUBLE_MODULE_MARKER followed by its
 * path, after a 64-byte ELF header with e_machine EM_CUDA, or anywhere in
 * PTX text), and cuLaunchKernel calls the host function of that name as
 * testdouble_kernel_fn with the parameter array.
 *
 * Environment (read at every call, so a test can change it between calls):
 *   CUDA_TESTDOUBLE_DEVICES  number of GPUs (default 1)
 *   CUDA_TESTDOUBLE_FAIL     "symbol=code[,symbol=code]": that driver
 *                            function returns CUresult `code`, e.g.
 *                            "cuMemAlloc_v2=2"
 */
#ifndef SIMTARGET_TESTDOUBLE_H
#define SIMTARGET_TESTDOUBLE_H

#include <stdint.h>

#define TESTDOUBLE_MODULE_MARKER "testdouble-module="
/* PTX containing this text fails to "JIT" with a log. */
#define TESTDOUBLE_JIT_ERROR_MARKER "testdouble-jit-error"
#define TESTDOUBLE_JIT_LOG "test double JIT: line 7: syntax error at 'bogus'"

/* Fixed device properties. */
#define TESTDOUBLE_SMS 4
#define TESTDOUBLE_MAX_THREADS_PER_BLOCK 1024
#define TESTDOUBLE_MAX_GRID 65535
#define TESTDOUBLE_WARP 32
#define TESTDOUBLE_CLOCK_KHZ 1500000
#define TESTDOUBLE_THREADS_PER_SM 2048

struct testdouble_launch {
  char kernel[128];
  unsigned grid[3], block[3];
  unsigned shared_bytes;
  int device; /* of the current context */
};

/* A host "kernel": returns a CUresult that cuCtxSynchronize reports. */
typedef int (*testdouble_kernel_fn)(void **params,
                                    const struct testdouble_launch *launch);

/* Exported by the double for the tests (looked up with dlsym). */
typedef int (*testdouble_last_launch_fn)(struct testdouble_launch *out);
typedef long (*testdouble_live_allocations_fn)(void);
/* The test double defines them; tests reach them through dlsym. */
int testdouble_last_launch(struct testdouble_launch *out);
long testdouble_live_allocations(void);

/* The device environment layout the double's kernels module declares
 * (LLVM 17+ DeviceEnvironmentTy). */
struct testdouble_device_environment {
  uint32_t debug_kind, num_devices, device_num, dynamic_memory_size;
  uint64_t clock_frequency, indirect_call_table, indirect_call_table_size,
      hardware_parallelism;
};

/* What k_env saw (a global of the kernels module). */
struct testdouble_env_seen {
  uint64_t launch_environment; /* parameter 0 */
  uint64_t reduction_buffer;
  uint32_t buffer_zeroed;
  uint32_t second_param;
};

#endif
