/*
 * cuda_driver_testdouble.c - a TEST DOUBLE of the CUDA driver API
 * (libcuda_testdouble.so), for testing the CUDA plugin without a GPU. It is
 * built only for the tests and never ships; the plugin opens it through the
 * SIMTARGET_CUDA_DRIVER test hook. See testdouble.h for what it simulates.
 *
 * It is strict where the real driver is: calls need a current context,
 * copies must stay inside a known allocation or module global, frees must
 * match their allocation function, launches respect the block and grid
 * limits. So a plugin bug shows up as a failed call, not as silent success.
 *
 * Locking: `double_lock` guards the allocation list and the last launch;
 * the current context is per thread, as in CUDA.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver_api.h"
#include "testdouble.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DOUBLE_DEVICES 8

struct CUctx_st {
  int device;
  int retained;
};
struct CUmod_st {
  void *so;
  int device;
};

enum region_kind { REGION_DEVICE, REGION_HOST, REGION_MANAGED, REGION_GLOBAL };
struct region {
  struct region *next;
  unsigned char *base;
  size_t size;
  enum region_kind kind;
};

static pthread_mutex_t double_lock = PTHREAD_MUTEX_INITIALIZER;
static struct region *regions;
static struct testdouble_launch last_launch;
static int launch_count;
static int initialized;
static CUresult pending_error; /* a kernel's failure, until synchronized */
static struct CUctx_st contexts[MAX_DOUBLE_DEVICES];
static __thread struct CUctx_st *current;

/* CUDA_TESTDOUBLE_FAIL="sym=code,...": the code for `sym`, or 0. */
static CUresult injected(const char *symbol) {
  const char *spec = getenv("CUDA_TESTDOUBLE_FAIL");
  size_t len = strlen(symbol);
  while (spec && *spec) {
    if (!strncmp(spec, symbol, len) && spec[len] == '=')
      return (CUresult)atoi(spec + len + 1);
    spec = strchr(spec, ',');
    if (spec)
      spec++;
  }
  return CUDA_SUCCESS;
}
#define FAIL_POINT(sym)                                                        \
  do {                                                                         \
    CUresult forced_ = injected(sym);                                          \
    if (forced_ != CUDA_SUCCESS)                                               \
      return forced_;                                                          \
  } while (0)

static int device_total(void) {
  const char *s = getenv("CUDA_TESTDOUBLE_DEVICES");
  int n = s ? atoi(s) : 1;
  return n < 0 ? 0 : n > MAX_DOUBLE_DEVICES ? MAX_DOUBLE_DEVICES : n;
}

/* Context and initialisation checks every driver call makes. */
static CUresult need_context(void) {
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  return current && current->retained ? CUDA_SUCCESS
                                      : CUDA_ERROR_INVALID_CONTEXT;
}

/* Under double_lock: the region containing [p, p+n), or NULL. */
static struct region *region_of(const void *p, size_t n) {
  const unsigned char *b = p;
  for (struct region *r = regions; r; r = r->next)
    if (b >= r->base && b <= r->base + r->size && n <= (size_t)(r->base + r->size - b))
      return r;
  return NULL;
}

static int range_known(const void *p, size_t n) {
  pthread_mutex_lock(&double_lock);
  int ok = region_of(p, n) != NULL;
  pthread_mutex_unlock(&double_lock);
  return ok;
}

static CUresult add_region(void *base, size_t size, enum region_kind kind) {
  struct region *r = malloc(sizeof *r);
  if (!r)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *r = (struct region){NULL, base, size, kind};
  pthread_mutex_lock(&double_lock);
  r->next = regions;
  regions = r;
  pthread_mutex_unlock(&double_lock);
  return CUDA_SUCCESS;
}

static CUresult remove_region(void *base, enum region_kind kind) {
  pthread_mutex_lock(&double_lock);
  for (struct region **link = &regions; *link; link = &(*link)->next)
    if ((*link)->base == base && (*link)->kind == kind) {
      struct region *r = *link;
      *link = r->next;
      pthread_mutex_unlock(&double_lock);
      free(r->base);
      free(r);
      return CUDA_SUCCESS;
    }
  pthread_mutex_unlock(&double_lock);
  return CUDA_ERROR_INVALID_VALUE;
}

/* ---------------------------------------------------------------- errors */
static const struct {
  CUresult code;
  const char *name, *text;
} error_table[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "test double: no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE",
     "test double: invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY",
     "test double: out of device memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "test double: cuInit was not called"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "test double: no CUDA-capable device here"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "test double: invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "test double: the image is not a module"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "test double: no current context on this thread"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "test double: PTX JIT compilation failed"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND",
     "test double: named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "test double: the kernel accessed an illegal address"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
     "test double: the launch failed"},
};

EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].code == error) {
      *name = error_table[i].name;
      return CUDA_SUCCESS;
    }
  *name = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].code == error) {
      *text = error_table[i].text;
      return CUDA_SUCCESS;
    }
  *text = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* ---------------------------------------------------------------- devices */
EXPORT CUresult cuInit(unsigned int flags) {
  FAIL_POINT("cuInit");
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  initialized = 1;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *version) {
  FAIL_POINT("cuDriverGetVersion");
  *version = 13000;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count) {
  FAIL_POINT("cuDeviceGetCount");
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *count = device_total();
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  FAIL_POINT("cuDeviceGet");
  if (ordinal < 0 || ordinal >= device_total())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  FAIL_POINT("cuDeviceGetName");
  snprintf(name, (size_t)len, "Test Double GPU %d", dev);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  FAIL_POINT("cuDeviceTotalMem_v2");
  (void)dev;
  *bytes = (size_t)1 << 30;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr,
                                     CUdevice dev) {
  FAIL_POINT("cuDeviceGetAttribute");
  if (dev < 0 || dev >= device_total())
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attr) {
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = TESTDOUBLE_SMS; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    *value = TESTDOUBLE_MAX_THREADS_PER_BLOCK;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = TESTDOUBLE_MAX_GRID; break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = TESTDOUBLE_WARP; break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = TESTDOUBLE_CLOCK_KHZ; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    *value = TESTDOUBLE_THREADS_PER_SM;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 8; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
  FAIL_POINT("cuDeviceCanAccessPeer");
  *can = dev != peer;
  return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- contexts */
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  FAIL_POINT("cuDevicePrimaryCtxRetain");
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (dev < 0 || dev >= device_total())
    return CUDA_ERROR_INVALID_DEVICE;
  contexts[dev].device = dev;
  contexts[dev].retained++;
  *ctx = &contexts[dev];
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  FAIL_POINT("cuDevicePrimaryCtxRelease_v2");
  if (dev < 0 || dev >= device_total() || contexts[dev].retained == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  contexts[dev].retained--;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  FAIL_POINT("cuCtxSetCurrent");
  current = ctx;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void) {
  FAIL_POINT("cuCtxSynchronize");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  pthread_mutex_lock(&double_lock);
  rc = pending_error; /* sticky in CUDA; cleared here for the next test */
  pending_error = CUDA_SUCCESS;
  pthread_mutex_unlock(&double_lock);
  return rc;
}

/* ---------------------------------------------------------------- modules */
static const char *find_marker(const char *text, size_t limit) {
  size_t mlen = strlen(TESTDOUBLE_MODULE_MARKER);
  for (size_t i = 0; i + mlen < limit && text[i]; i++)
    if (!memcmp(text + i, TESTDOUBLE_MODULE_MARKER, mlen))
      return text + i + mlen;
  return NULL;
}

static void write_log(unsigned n, CUjit_option *options, void **values,
                      const char *text) {
  char *buf = NULL;
  size_t size = 0;
  for (unsigned i = 0; i < n; i++) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      buf = values[i];
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      size = (size_t)(uintptr_t)values[i];
  }
  if (buf && size)
    snprintf(buf, size, "%s", text);
}

EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                   unsigned int n, CUjit_option *options,
                                   void **values) {
  FAIL_POINT("cuModuleLoadDataEx");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  const unsigned char *bytes = image;
  const char *marker = NULL;
  if (!memcmp(bytes, ELFMAG, SELFMAG)) {
    Elf64_Ehdr eh;
    memcpy(&eh, bytes, sizeof eh);
    if (eh.e_machine != 190)
      return CUDA_ERROR_INVALID_IMAGE;
    marker = find_marker((const char *)bytes + sizeof eh, 4096);
  } else {
    /* PTX must arrive NUL-terminated: strstr would run off otherwise */
    const char *text = image;
    if (!strstr(text, ".version"))
      return CUDA_ERROR_INVALID_IMAGE;
    if (strstr(text, TESTDOUBLE_JIT_ERROR_MARKER)) {
      write_log(n, options, values, TESTDOUBLE_JIT_LOG "\n");
      return CUDA_ERROR_INVALID_PTX;
    }
    marker = find_marker(text, strlen(text));
  }
  if (!marker)
    return CUDA_ERROR_INVALID_IMAGE;
  char path[512];
  size_t len = strcspn(marker, "\n");
  if (len >= sizeof path)
    return CUDA_ERROR_INVALID_IMAGE;
  memcpy(path, marker, len);
  path[len] = '\0';
  struct CUmod_st *m = calloc(1, sizeof *m);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  m->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!m->so) {
    write_log(n, options, values, dlerror());
    free(m);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  m->device = current->device;
  *module = m;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleUnload(CUmodule module) {
  FAIL_POINT("cuModuleUnload");
  if (!module)
    return CUDA_ERROR_INVALID_VALUE;
  dlclose(module->so);
  free(module);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module,
                                    const char *name) {
  FAIL_POINT("cuModuleGetFunction");
  if (!module || !name)
    return CUDA_ERROR_INVALID_VALUE;
  void *sym = dlsym(module->so, name);
  if (!sym)
    return CUDA_ERROR_NOT_FOUND;
  *fn = (CUfunction)sym;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetGlobal(CUdeviceptr *ptr, size_t *bytes,
                                  CUmodule module, const char *name) {
  FAIL_POINT("cuModuleGetGlobal_v2");
  if (!module || !name)
    return CUDA_ERROR_INVALID_VALUE;
  void *sym = dlsym(module->so, name);
  if (!sym)
    return CUDA_ERROR_NOT_FOUND;
  Dl_info info;
  const ElfW(Sym) *entry = NULL;
  if (!dladdr1(sym, &info, (void **)&entry, RTLD_DL_SYMENT) || !entry)
    return CUDA_ERROR_NOT_FOUND;
  if (!range_known(sym, entry->st_size)) {
    /* globals are device memory too; never freed (kind GLOBAL) */
    struct region *r = malloc(sizeof *r);
    if (!r)
      return CUDA_ERROR_OUT_OF_MEMORY;
    *r = (struct region){NULL, sym, entry->st_size, REGION_GLOBAL};
    pthread_mutex_lock(&double_lock);
    r->next = regions;
    regions = r;
    pthread_mutex_unlock(&double_lock);
  }
  if (ptr)
    *ptr = (CUdeviceptr)(uintptr_t)sym;
  if (bytes)
    *bytes = entry->st_size;
  return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- memory */
static CUresult alloc_region(void **out, size_t size, enum region_kind kind) {
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = malloc(size);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memset(p, 0xA5, size); /* device memory is not zeroed */
  rc = add_region(p, size, kind);
  if (rc != CUDA_SUCCESS) {
    free(p);
    return rc;
  }
  *out = p;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAlloc(CUdeviceptr *ptr, size_t size) {
  FAIL_POINT("cuMemAlloc_v2");
  void *p;
  CUresult rc = alloc_region(&p, size, REGION_DEVICE);
  if (rc == CUDA_SUCCESS)
    *ptr = (CUdeviceptr)(uintptr_t)p;
  return rc;
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t size,
                                  unsigned int flags) {
  FAIL_POINT("cuMemAllocManaged");
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
    return CUDA_ERROR_INVALID_VALUE;
  void *p;
  CUresult rc = alloc_region(&p, size, REGION_MANAGED);
  if (rc == CUDA_SUCCESS)
    *ptr = (CUdeviceptr)(uintptr_t)p;
  return rc;
}

EXPORT CUresult cuMemAllocHost(void **ptr, size_t size) {
  FAIL_POINT("cuMemAllocHost_v2");
  return alloc_region(ptr, size, REGION_HOST);
}

EXPORT CUresult cuMemFree(CUdeviceptr ptr) {
  FAIL_POINT("cuMemFree_v2");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  void *p = (void *)(uintptr_t)ptr;
  if (remove_region(p, REGION_DEVICE) == CUDA_SUCCESS)
    return CUDA_SUCCESS;
  return remove_region(p, REGION_MANAGED);
}

EXPORT CUresult cuMemFreeHost(void *ptr) {
  FAIL_POINT("cuMemFreeHost");
  return remove_region(ptr, REGION_HOST);
}

EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  FAIL_POINT("cuMemcpyHtoD_v2");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (!range_known((void *)(uintptr_t)dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  FAIL_POINT("cuMemcpyDtoH_v2");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (!range_known((void *)(uintptr_t)src, n))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy(dst, (void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  FAIL_POINT("cuMemcpyDtoD_v2");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (!range_known((void *)(uintptr_t)src, n) ||
      !range_known((void *)(uintptr_t)dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_ctx,
                             CUdeviceptr src, CUcontext src_ctx, size_t n) {
  FAIL_POINT("cuMemcpyPeer");
  if (!dst_ctx || !src_ctx || !dst_ctx->retained || !src_ctx->retained)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!range_known((void *)(uintptr_t)src, n) ||
      !range_known((void *)(uintptr_t)dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t n) {
  FAIL_POINT("cuMemsetD8_v2");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (!range_known((void *)(uintptr_t)dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memset((void *)(uintptr_t)dst, value, n);
  return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- launch */
EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, CUstream stream,
                               void **params, void **extra) {
  FAIL_POINT("cuLaunchKernel");
  CUresult rc = need_context();
  if (rc != CUDA_SUCCESS)
    return rc;
  if (!f || stream != NULL || extra != NULL || gx == 0 || gy == 0 ||
      gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      (unsigned long)bx * by * bz > TESTDOUBLE_MAX_THREADS_PER_BLOCK ||
      gx > TESTDOUBLE_MAX_GRID)
    return CUDA_ERROR_INVALID_VALUE;
  struct testdouble_launch launch = {.grid = {gx, gy, gz},
                                     .block = {bx, by, bz},
                                     .shared_bytes = shared,
                                     .device = current->device};
  Dl_info info;
  if (dladdr((void *)f, &info) && info.dli_sname)
    snprintf(launch.kernel, sizeof launch.kernel, "%s", info.dli_sname);
  pthread_mutex_lock(&double_lock);
  last_launch = launch;
  launch_count++;
  pthread_mutex_unlock(&double_lock);
  int result = ((testdouble_kernel_fn)(void *)f)(params, &launch);
  pthread_mutex_lock(&double_lock);
  if (result != 0 && pending_error == CUDA_SUCCESS)
    pending_error = (CUresult)result;
  pthread_mutex_unlock(&double_lock);
  return CUDA_SUCCESS; /* like CUDA: kernel faults surface at synchronize */
}

/* ---------------------------------------------------------------- for tests */
EXPORT int testdouble_last_launch(struct testdouble_launch *out) {
  pthread_mutex_lock(&double_lock);
  *out = last_launch;
  int n = launch_count;
  pthread_mutex_unlock(&double_lock);
  return n;
}

/* Live allocations (module globals excluded). */
EXPORT long testdouble_live_allocations(void) {
  long n = 0;
  pthread_mutex_lock(&double_lock);
  for (struct region *r = regions; r; r = r->next)
    n += r->kind != REGION_GLOBAL;
  pthread_mutex_unlock(&double_lock);
  return n;
}

/* The plugin unloads the double at deinit: release its bookkeeping (module
 * globals are the module's memory, the rest was malloc'ed here). */
__attribute__((destructor)) static void testdouble_unload(void) {
  while (regions) {
    struct region *r = regions;
    regions = r->next;
    if (r->kind != REGION_GLOBAL)
      free(r->base);
    free(r);
  }
}
