/*
 * cuda_driver_api.h - the part of the CUDA driver API that the CUDA plugin
 * and its test double use: a few handle types, the enumerators they pass or
 * compare, and the prototypes of the cu* functions driver.c resolves with
 * dlsym. Written from NVIDIA's documented driver API so that the plugin
 * builds without a CUDA toolkit (CI has none); it never links against the
 * driver anyway.
 *
 * With SIMTARGET_HAVE_CUDA_H (the Makefile defines it when
 * $(CUDA_PATH)/include/cuda.h exists) the real cuda.h is used instead, and
 * the tables below become static assertions that it agrees with them value
 * by value and prototype by prototype, so the two can never drift apart.
 *
 * Each table is the single source of both forms:
 *   CUDA_API_TYPES(X)      X(name, type)          handle and scalar types
 *   CUDA_API_ENUMS(X, E)   X(enum type, E-list)   enumerators and values
 *   CUDA_API_FUNCTIONS(X)  X(name, symbol, (parameters))
 * `symbol` is what the driver exports: cuda.h renames some functions to
 * their current version (cuMemAlloc is the symbol cuMemAlloc_v2), and the
 * #defines below do the same, so `cuMemAlloc` in the plugin means the
 * symbol driver.c must look up.
 */
#ifndef SIMTARGET_CUDA_DRIVER_API_H
#define SIMTARGET_CUDA_DRIVER_API_H

#include <stddef.h>

#define CUDA_API_TYPES(X)                                                      \
  X(CUdevice, int)                                                             \
  X(CUdeviceptr, unsigned long long)                                           \
  X(CUcontext, struct CUctx_st *)                                              \
  X(CUmodule, struct CUmod_st *)                                               \
  X(CUfunction, struct CUfunc_st *)                                            \
  X(CUstream, struct CUstream_st *)

/* Only the enumerators the plugin and its tests use; values from the
 * driver API reference. */
#define CUDA_API_RESULTS(E)                                                    \
  E(CUDA_SUCCESS, 0)                                                           \
  E(CUDA_ERROR_INVALID_VALUE, 1)                                               \
  E(CUDA_ERROR_OUT_OF_MEMORY, 2)                                               \
  E(CUDA_ERROR_NOT_INITIALIZED, 3)                                             \
  E(CUDA_ERROR_NO_DEVICE, 100)                                                 \
  E(CUDA_ERROR_INVALID_DEVICE, 101)                                            \
  E(CUDA_ERROR_INVALID_IMAGE, 200)                                             \
  E(CUDA_ERROR_INVALID_CONTEXT, 201)                                           \
  E(CUDA_ERROR_INVALID_PTX, 218)                                               \
  E(CUDA_ERROR_NOT_FOUND, 500)                                                 \
  E(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                                           \
  E(CUDA_ERROR_LAUNCH_FAILED, 719)
#define CUDA_API_DEVICE_ATTRIBUTES(E)                                          \
  E(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1)                              \
  E(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 2)                                    \
  E(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 5)                                     \
  E(CU_DEVICE_ATTRIBUTE_WARP_SIZE, 10)                                         \
  E(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 13)                                        \
  E(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16)                              \
  E(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 39)                    \
  E(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)                          \
  E(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)
#define CUDA_API_JIT_OPTIONS(E)                                                \
  E(CU_JIT_ERROR_LOG_BUFFER, 5)                                                \
  E(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6)
#define CUDA_API_MEM_ATTACH_FLAGS(E)                                           \
  E(CU_MEM_ATTACH_GLOBAL, 0x1)                                                 \
  E(CU_MEM_ATTACH_HOST, 0x2)

#define CUDA_API_ENUMS(X)                                                      \
  X(CUresult, CUDA_API_RESULTS)                                                \
  X(CUdevice_attribute, CUDA_API_DEVICE_ATTRIBUTES)                            \
  X(CUjit_option, CUDA_API_JIT_OPTIONS)                                        \
  X(CUmemAttach_flags, CUDA_API_MEM_ATTACH_FLAGS)

#define CUDA_API_FUNCTIONS(X)                                                  \
  X(cuInit, cuInit, (unsigned int flags))                                      \
  X(cuDriverGetVersion, cuDriverGetVersion, (int *version))                    \
  X(cuGetErrorName, cuGetErrorName, (CUresult error, const char **name))       \
  X(cuGetErrorString, cuGetErrorString, (CUresult error, const char **text))   \
  X(cuDeviceGetCount, cuDeviceGetCount, (int *count))                          \
  X(cuDeviceGet, cuDeviceGet, (CUdevice * device, int ordinal))                \
  X(cuDeviceGetName, cuDeviceGetName, (char *name, int len, CUdevice dev))     \
  X(cuDeviceGetAttribute, cuDeviceGetAttribute,                                \
    (int *value, CUdevice_attribute attribute, CUdevice dev))                  \
  X(cuDeviceTotalMem, cuDeviceTotalMem_v2, (size_t * bytes, CUdevice dev))     \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain,                        \
    (CUcontext * context, CUdevice dev))                                       \
  X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, (CUdevice dev))   \
  X(cuCtxSetCurrent, cuCtxSetCurrent, (CUcontext context))                     \
  X(cuCtxSynchronize, cuCtxSynchronize, (void))                                \
  X(cuModuleLoadDataEx, cuModuleLoadDataEx,                                    \
    (CUmodule * module, const void *image, unsigned int num_options,           \
     CUjit_option *options, void **option_values))                             \
  X(cuModuleUnload, cuModuleUnload, (CUmodule module))                         \
  X(cuModuleGetFunction, cuModuleGetFunction,                                  \
    (CUfunction * function, CUmodule module, const char *name))                \
  X(cuModuleGetGlobal, cuModuleGetGlobal_v2,                                   \
    (CUdeviceptr * address, size_t *bytes, CUmodule module, const char *name)) \
  X(cuMemAlloc, cuMemAlloc_v2, (CUdeviceptr * address, size_t bytes))          \
  X(cuMemFree, cuMemFree_v2, (CUdeviceptr address))                            \
  X(cuMemcpyHtoD, cuMemcpyHtoD_v2,                                             \
    (CUdeviceptr dst, const void *src, size_t bytes))                          \
  X(cuMemcpyDtoH, cuMemcpyDtoH_v2,                                             \
    (void *dst, CUdeviceptr src, size_t bytes))                                \
  X(cuMemcpyDtoD, cuMemcpyDtoD_v2,                                             \
    (CUdeviceptr dst, CUdeviceptr src, size_t bytes))                          \
  X(cuMemsetD8, cuMemsetD8_v2,                                                 \
    (CUdeviceptr dst, unsigned char value, size_t count))                      \
  X(cuLaunchKernel, cuLaunchKernel,                                            \
    (CUfunction function, unsigned int grid_x, unsigned int grid_y,            \
     unsigned int grid_z, unsigned int block_x, unsigned int block_y,          \
     unsigned int block_z, unsigned int shared_bytes, CUstream stream,         \
     void **params, void **extra))                                             \
  X(cuMemAllocHost, cuMemAllocHost_v2, (void **address, size_t bytes))         \
  X(cuMemFreeHost, cuMemFreeHost, (void *address))                             \
  X(cuMemAllocManaged, cuMemAllocManaged,                                      \
    (CUdeviceptr * address, size_t bytes, unsigned int flags))                 \
  X(cuMemcpyPeer, cuMemcpyPeer,                                                \
    (CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src,                  \
     CUcontext src_context, size_t bytes))                                     \
  X(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer,                              \
    (int *can_access, CUdevice dev, CUdevice peer))

#ifdef SIMTARGET_HAVE_CUDA_H
#include <cuda.h>

/* cuda.h must agree with every table above. */
#define CUDA_API_CHECK_TYPE(name, type)                                        \
  _Static_assert(__builtin_types_compatible_p(name, type),                     \
                 "cuda.h: " #name " is not " #type);
#define CUDA_API_CHECK_VALUE(name, value)                                      \
  _Static_assert((long long)(name) == (value), "cuda.h: " #name " != " #value);
#define CUDA_API_CHECK_ENUM(type, list)                                        \
  _Static_assert(sizeof(type) == sizeof(int), "cuda.h: " #type " size");       \
  list(CUDA_API_CHECK_VALUE)
CUDA_API_TYPES(CUDA_API_CHECK_TYPE)
CUDA_API_ENUMS(CUDA_API_CHECK_ENUM)

#else /* no cuda.h: our own declarations */

#define CUDA_API_DECLARE_TYPE(name, type) typedef type name;
#define CUDA_API_ENUMERATOR(name, value) name = value,
#define CUDA_API_DECLARE_ENUM(type, list)                                      \
  typedef enum { list(CUDA_API_ENUMERATOR) } type;
CUDA_API_TYPES(CUDA_API_DECLARE_TYPE)
CUDA_API_ENUMS(CUDA_API_DECLARE_ENUM)
#undef CUDA_API_DECLARE_TYPE
#undef CUDA_API_ENUMERATOR
#undef CUDA_API_DECLARE_ENUM

/* The versioned symbols, as cuda.h names them (checked below). */
#define cuDeviceTotalMem cuDeviceTotalMem_v2
#define cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease_v2
#define cuModuleGetGlobal cuModuleGetGlobal_v2
#define cuMemAlloc cuMemAlloc_v2
#define cuMemFree cuMemFree_v2
#define cuMemcpyHtoD cuMemcpyHtoD_v2
#define cuMemcpyDtoH cuMemcpyDtoH_v2
#define cuMemcpyDtoD cuMemcpyDtoD_v2
#define cuMemsetD8 cuMemsetD8_v2
#define cuMemAllocHost cuMemAllocHost_v2

#define CUDA_API_DECLARE_FUNCTION(name, symbol, params) CUresult symbol params;
CUDA_API_FUNCTIONS(CUDA_API_DECLARE_FUNCTION)
#undef CUDA_API_DECLARE_FUNCTION

#endif /* SIMTARGET_HAVE_CUDA_H */

/* Whichever declared them: every function has the prototype of the table,
 * and its name (after cuda.h's or our renaming) is the symbol of the table.
 * The second check names a member `symbol` through the expanded `name`: it
 * compiles only when the two are the same identifier. */
#define CUDA_API_SYMBOL_MEMBER(name, symbol, params) char symbol;
struct cuda_api_symbols {
  CUDA_API_FUNCTIONS(CUDA_API_SYMBOL_MEMBER)
};
#undef CUDA_API_SYMBOL_MEMBER
#define CUDA_API_CHECK_FUNCTION(name, symbol, params)                          \
  _Static_assert(                                                              \
      __builtin_types_compatible_p(__typeof__(&symbol), CUresult(*) params),   \
      #symbol " has the prototype of the table");                              \
  _Static_assert(offsetof(struct cuda_api_symbols, name) ==                    \
                     offsetof(struct cuda_api_symbols, symbol),                \
                 #name " is renamed to " #symbol);
CUDA_API_FUNCTIONS(CUDA_API_CHECK_FUNCTION)
#undef CUDA_API_CHECK_FUNCTION

#endif
