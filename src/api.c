/*
 * api.c - the OpenMP user routines about devices and the device memory
 * routines (omp_target_alloc, omp_target_memcpy, ...).
 *
 * These are library calls, not constructs: a bad argument prints an error
 * naming the routine and the argument and returns the routine's failure
 * value; it never ends the program.
 *
 * Memory of another kind than device memory (llvm_omp_target_alloc_host,
 * _shared) is the plugin's business: the kind goes to its data_alloc, which
 * allocates it or says why it cannot.
 *
 * Every block handed out is remembered (device, range, kind) in
 * memory_blocks.c: host and shared memory so that omp_target_is_accessible
 * can say the device reaches it, device memory so that a mapping can
 * recognise a device address passed where a host address belongs.
 *
 * Thread safety: the default device lives in device.c under its own lock;
 * the mapping table's operations (mapping_ops.c) and memory_blocks.c take
 * their own locks; nothing here locks a table or writes an entry.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "api_uid.h"
#include "check_findings.h"
#include "device.h"
#include "faults.h"
#include "ompt.h"
#include "mapping_ops.h"
#include "memory_blocks.h"
#include "report.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- user routines --------------------------------------------------- */

EXPORT int omp_get_num_devices(void) { return devices_visible_count(); }
EXPORT int omp_get_initial_device(void) { return devices_visible_count(); }
EXPORT int omp_is_initial_device(void) { return 1; } /* host code */
EXPORT int omp_get_device_num(void) { return omp_get_initial_device(); }
EXPORT void omp_set_default_device(int device_num) {
  devices_set_own_default_id(device_num);
}
EXPORT int omp_get_default_device(void) { return devices_own_default_id(); }

/* ---- device memory routines ---------------------------------------------- */

/* Resolve a device_num argument of an API routine. Returns 1 for the host,
 * 0 with *dev set for a ready device, -1 after printing why not. */
int api_device(const char *routine, int device_num, struct device **dev) {
  *dev = NULL;
  int n = devices_visible_count();
  if (device_num == n)
    return 1;
  report_error_clear();
  if (device_num < 0 || device_num > n) {
    report_error("%s: device_num %d is not a device: valid ids are 0..%d "
                 "(%d is the host)",
                 routine, device_num, n - 1, n);
    return -1;
  }
  *dev = device_get(device_num);
  if (!*dev || device_ready(*dev) != 0) {
    report_error("%s: device %d cannot be used: %s", routine, device_num,
                 report_error_get());
    report_error_clear();
    return -1;
  }
  return 0;
}

static const char *alloc_kind_name(int32_t kind) {
  switch (kind) {
  case TARGET_ALLOC_DEVICE: return "device";
  case TARGET_ALLOC_HOST: return "host";
  case TARGET_ALLOC_SHARED: return "shared";
  default: return "default";
  }
}

/* `size` bytes of memory of `kind` for device_num (host memory from malloc
 * for the initial device), or NULL after saying why. */
void *api_alloc(const char *routine, size_t size, int device_num,
                       int32_t kind) {
  struct device *dev;
  if (size == 0)
    return NULL; /* OpenMP: a zero size returns NULL */
  int where = api_device(routine, device_num, &dev);
  if (where == 1)
    return malloc(size);
  if (where < 0)
    return NULL;
  if (size > INT64_MAX) {
    report_error("%s: size %zu is too large", routine, size);
    return NULL;
  }
  void *p = device_alloc(dev, (int64_t)size, NULL, kind);
  if (p && memory_blocks_add(device_num, (uintptr_t)p, size,
                             kind != TARGET_ALLOC_HOST &&
                                 kind != TARGET_ALLOC_SHARED) != 0)
    report_error_clear(); /* only the answers about this block are lost */
  if (!p) {
    report_error("%s(%zu bytes, device %d): plugin %s gives no %s memory: "
                 "%s",
                 routine, size, device_num, dev->plugin->name,
                 alloc_kind_name(kind), report_error_get());
    report_error_clear();
  }
  return p;
}

/* Free what api_alloc returned (any kind: the plugin knows which it is). */
void api_free(const char *routine, void *ptr, int device_num) {
  struct device *dev;
  if (!ptr)
    return;
  int where = api_device(routine, device_num, &dev);
  if (where == 1) {
    free(ptr);
    return;
  }
  if (where < 0)
    return;
  memory_blocks_remove(device_num, (uintptr_t)ptr);
  if (device_delete(dev, ptr) != 0) {
    report_error("%s(%p, %d): %s", routine, ptr, device_num,
                 report_error_get());
    report_error_clear();
  }
}

EXPORT void *omp_target_alloc(size_t size, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  return api_alloc("omp_target_alloc", size, device_num,
                   TARGET_ALLOC_DEFAULT);
}

EXPORT void omp_target_free(void *device_ptr, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  api_free("omp_target_free", device_ptr, device_num);
}

EXPORT int omp_target_is_present(const void *ptr, int device_num) {
  struct device *dev;
  int where = api_device("omp_target_is_present", device_num, &dev);
  if (where != 0)
    return where == 1;
  return mapping_is_present(&dev->map, (uintptr_t)ptr);
}

/* OpenMP 5.1: can device_num's kernels access host memory [ptr, ptr+size)?
 * Never NULL; the host can (device_num the initial device or, OpenMP 5.2,
 * omp_initial_device); a device only inside host or shared memory it gave out
 * (simdevice's other memory is its own process's; the CUDA plugin's host
 * and managed memory likewise). */
EXPORT int omp_target_is_accessible(const void *ptr, size_t size,
                                    int device_num) {
  struct device *dev;
  if (!ptr)
    return 0; /* as LLVM 21+: not even for the host */
  if (device_num == API_INITIAL_DEVICE)
    return 1;
  int where = api_device("omp_target_is_accessible", device_num, &dev);
  if (where != 0)
    return where == 1;
  uintptr_t begin = (uintptr_t)ptr, end = begin + (size ? size : 1);
  struct memory_block b;
  return memory_blocks_find(device_num, false, begin, &b) && end <= b.end;
}

EXPORT void *omp_get_mapped_ptr(const void *ptr, int device_num) {
  struct device *dev;
  if (!ptr)
    return NULL;
  int where = api_device("omp_get_mapped_ptr", device_num, &dev);
  if (where != 0)
    return where == 1 ? (void *)ptr : NULL;
  return (void *)mapping_device_address(&dev->map, (uintptr_t)ptr);
}

/* A memory routine that failed on a device copy (outside any live device
 * allocation, past one's end) is a finding of the plain run (check
 * "guard"), as a failed construct is: `what` is its message. */
static void api_finding(const char *routine, const char *what) {
  char message[1400];
  snprintf(message, sizeof message, "%s failed: %s", routine, what);
  struct check_finding f = {
      .check = "guard",
      .rule = "memory-routine-failed",
      .construct = routine, /* a routine call carries no source location */
      .message = message,
      .gpu = "the copy reads or writes outside the device allocation: an "
             "illegal-address error or another allocation's data",
      .fix = "keep each copy inside one live device allocation (its "
             "offsets and length within the block omp_target_alloc gave)",
  };
  if (check_finding_write(&f) < 0)
    report_error("cannot append the finding to %s=%s", CHECK_REPORT_ENV,
                 getenv(CHECK_REPORT_ENV));
}

/* Copy `len` bytes between any two of host and devices. */
static int api_copy(const char *routine, char *dst, const char *src,
                    size_t len, int dst_device, int src_device) {
  struct device *ddev, *sdev;
  int dwhere = api_device(routine, dst_device, &ddev);
  int swhere = api_device(routine, src_device, &sdev);
  if (dwhere < 0 || swhere < 0)
    return EINVAL;
  if (len == 0)
    return 0;
  if ((int64_t)len < 0) {
    report_error("%s: length %zu is too large", routine, len);
    return EINVAL;
  }
  int rc = 0;
  report_error_clear();
  if (dwhere == 1 && swhere == 1) {
    memmove(dst, src, len);
  } else if (dwhere == 1) {
    rc = device_retrieve(sdev, dst, (void *)src, (int64_t)len);
  } else if (swhere == 1) {
    rc = device_submit(ddev, dst, (void *)src, (int64_t)len);
  } else if (ddev->plugin == sdev->plugin && sdev->plugin->ops.data_exchange &&
             sdev->plugin->ops.is_data_exchangable &&
             RTL_CALL(API_IS_DATA_EXCHANGABLE, &sdev->plugin->ops,
                      is_data_exchangable)(sdev->rtl_id,
                                                   ddev->rtl_id)) {
    rc = RTL_CALL(API_DATA_EXCHANGE, &sdev->plugin->ops, data_exchange)(sdev->rtl_id, (void *)src,
                                         ddev->rtl_id, dst, (int64_t)len);
    if (rc)
      report_error_set("device %d to device %d copy of %zu bytes failed",
                       src_device, dst_device, len);
  } else {
    /* no direct path: through a host buffer */
    void *bounce = malloc(len);
    if (!bounce) {
      report_error("%s: out of host memory for a %zu-byte bounce buffer",
                   routine, len);
      return ENOMEM;
    }
    rc = device_retrieve(sdev, bounce, (void *)src, (int64_t)len);
    if (!rc)
      rc = device_submit(ddev, dst, bounce, (int64_t)len);
    free(bounce);
  }
  if (rc) {
    report_error("%s(dst=%p on %d, src=%p on %d, %zu bytes): %s", routine,
                 (void *)dst, dst_device, (const void *)src, src_device, len,
                 report_error_get());
    api_finding(routine, report_error_get());
    report_error_clear();
    return EINVAL;
  }
  return 0;
}

int api_memcpy(const char *routine, void *dst, const void *src,
               size_t length, size_t dst_offset, size_t src_offset,
               int dst_device, int src_device) {
  if (!dst || !src) {
    report_error("%s: %s is NULL", routine, !dst ? "dst" : "src");
    return EINVAL;
  }
  return api_copy(routine, (char *)dst + dst_offset,
                  (const char *)src + src_offset, length, dst_device,
                  src_device);
}

EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length,
                             size_t dst_offset, size_t src_offset,
                             int dst_device, int src_device) {
  ompt_set_codeptr(__builtin_return_address(0));
  return api_memcpy("omp_target_memcpy", dst, src, length, dst_offset,
                    src_offset, dst_device, src_device);
}

static int rect_copy(const char *routine, char *dst, const char *src,
                     size_t elem, int ndims, const size_t *volume,
                     const size_t *dst_off, const size_t *src_off,
                     const size_t *dst_dims, const size_t *src_dims,
                     int dst_device, int src_device) {
  /* size in bytes of one step along dimension 0 */
  size_t dst_stride = elem, src_stride = elem;
  for (int d = 1; d < ndims; d++) {
    dst_stride *= dst_dims[d];
    src_stride *= src_dims[d];
  }
  if (ndims == 1)
    return api_copy(routine, dst + dst_off[0] * elem,
                    src + src_off[0] * elem, volume[0] * elem, dst_device,
                    src_device);
  for (size_t i = 0; i < volume[0]; i++) {
    int rc = rect_copy(routine, dst + (dst_off[0] + i) * dst_stride,
                       src + (src_off[0] + i) * src_stride, elem, ndims - 1,
                       volume + 1, dst_off + 1, src_off + 1, dst_dims + 1,
                       src_dims + 1, dst_device, src_device);
    if (rc)
      return rc;
  }
  return 0;
}

int api_memcpy_rect_check(const char *routine, void *dst, const void *src,
                          size_t element_size, int num_dims,
                          const size_t *volume, const size_t *dst_offsets,
                          const size_t *src_offsets,
                          const size_t *dst_dimensions,
                          const size_t *src_dimensions) {
  if (!dst || !src || num_dims < 1 || element_size == 0 || !volume ||
      !dst_offsets || !src_offsets || !dst_dimensions || !src_dimensions) {
    report_error("%s: invalid argument (%s)", routine,
                 !dst || !src            ? "dst or src is NULL"
                 : num_dims < 1          ? "num_dims < 1"
                 : element_size == 0     ? "element_size is 0"
                                         : "a NULL offsets, volume or "
                                           "dimensions array");
    return EINVAL;
  }
  for (int d = 0; d < num_dims; d++)
    if (dst_offsets[d] + volume[d] > dst_dimensions[d] ||
        src_offsets[d] + volume[d] > src_dimensions[d]) {
      report_error("%s: dimension %d: offset + volume exceeds the array's "
                   "dimension",
                   routine, d);
      return EINVAL;
    }
  return 0;
}

int api_memcpy_rect(const char *routine, void *dst, const void *src,
                    size_t element_size, int num_dims, const size_t *volume,
                    const size_t *dst_offsets, const size_t *src_offsets,
                    const size_t *dst_dimensions,
                    const size_t *src_dimensions, int dst_device,
                    int src_device) {
  int rc = api_memcpy_rect_check(routine, dst, src, element_size, num_dims,
                                 volume, dst_offsets, src_offsets,
                                 dst_dimensions, src_dimensions);
  if (rc)
    return rc;
  return rect_copy(routine, dst, src, element_size, num_dims, volume,
                   dst_offsets, src_offsets, dst_dimensions, src_dimensions,
                   dst_device, src_device);
}

EXPORT int omp_target_memcpy_rect(void *dst, const void *src,
                                  size_t element_size, int num_dims,
                                  const size_t *volume,
                                  const size_t *dst_offsets,
                                  const size_t *src_offsets,
                                  const size_t *dst_dimensions,
                                  const size_t *src_dimensions,
                                  int dst_device, int src_device) {
  ompt_set_codeptr(__builtin_return_address(0));
  if (!dst && !src)
    return INT_MAX; /* OpenMP: the number of dimensions supported */
  return api_memcpy_rect("omp_target_memcpy_rect", dst, src, element_size,
                         num_dims, volume, dst_offsets, src_offsets,
                         dst_dimensions, src_dimensions, dst_device,
                         src_device);
}

EXPORT int omp_target_associate_ptr(const void *host_ptr,
                                    const void *device_ptr, size_t size,
                                    size_t device_offset, int device_num) {
  struct device *dev;
  ompt_set_codeptr(__builtin_return_address(0));
  if (!host_ptr || !device_ptr || size == 0) {
    report_error("omp_target_associate_ptr: %s",
                 !host_ptr ? "host_ptr is NULL"
                 : !device_ptr ? "device_ptr is NULL"
                               : "size is 0");
    return EINVAL;
  }
  int where = api_device("omp_target_associate_ptr", device_num, &dev);
  if (where != 0)
    return EINVAL;
  uintptr_t hb = (uintptr_t)host_ptr, tb = (uintptr_t)device_ptr + device_offset;
  struct mapping_range other;
  struct ompt_op op = ompt_op_make(OMPT_OP_ASSOCIATE, (void *)hb, OMPT_HOST,
                                   (void *)tb, dev->id, size);
  ompt_op_begin(&op);
  int rc = mapping_associate(&dev->map, hb, size, tb, &other);
  ompt_op_end(&op);
  if (rc == ENOMEM) {
    report_error("omp_target_associate_ptr: out of host memory");
  } else if (rc == EEXIST) {
    report_error("omp_target_associate_ptr: host %p[0:%zu] is already mapped "
                 "(host 0x%" PRIxPTR "[0:%" PRIuPTR "] -> device 0x%" PRIxPTR
                 ") to another device address",
                 host_ptr, size, other.hst_begin,
                 other.hst_end - other.hst_begin, other.tgt_begin);
    rc = EINVAL;
  }
  return rc;
}

EXPORT int omp_target_disassociate_ptr(const void *host_ptr, int device_num) {
  struct device *dev;
  ompt_set_codeptr(__builtin_return_address(0));
  int where = api_device("omp_target_disassociate_ptr", device_num, &dev);
  if (where != 0)
    return EINVAL;
  struct mapping_range held;
  struct ompt_op op = ompt_op_make(OMPT_OP_DISASSOCIATE, (void *)host_ptr,
                                   OMPT_HOST, NULL, dev->id, 0);
  ompt_op_begin(&op);
  int rc = mapping_disassociate(&dev->map, (uintptr_t)host_ptr, &held);
  ompt_op_end(&op);
  switch (rc) {
  case 0:
    return 0;
  case ENOENT:
    report_error("omp_target_disassociate_ptr: host %p is not associated "
                 "with device %d",
                 host_ptr, device_num);
    return EINVAL;
  case EPERM:
    report_error("omp_target_disassociate_ptr: host %p was mapped by a map "
                 "clause or declare target, not by omp_target_associate_ptr",
                 host_ptr);
    return EINVAL;
  default: /* EBUSY */
    /* OpenMP 5.1 / LLVM: an association still held by an ompx_hold map
     * (a construct using it is active) cannot go. */
    report_error("omp_target_disassociate_ptr: host %p is held by %" PRIu64
                 " active ompx_hold map(s) on device %d; disassociate it "
                 "after the construct that holds it ends",
                 host_ptr, held.hold_refcount, device_num);
    return EINVAL;
  }
}

int api_memset(const char *routine, void *ptr, int value, size_t count,
               int device_num) {
  struct device *dev;
  if (!ptr || count == 0)
    return 0;
  int where = api_device(routine, device_num, &dev);
  if (where == 1) {
    memset(ptr, value, count);
    return 0;
  }
  if (where < 0)
    return EINVAL;
  /* Through a bounded host buffer: the plugin interface has no memset. */
  size_t chunk = count < (1u << 20) ? count : (1u << 20);
  char *buf = malloc(chunk);
  if (!buf) {
    report_error("%s: out of host memory", routine);
    return ENOMEM;
  }
  memset(buf, value, chunk);
  int rc = 0;
  for (size_t done = 0; done < count; done += chunk) {
    size_t n = count - done < chunk ? count - done : chunk;
    if (device_submit(dev, (char *)ptr + done, buf, (int64_t)n) != 0) {
      report_error("%s(%p, %d, %zu, %d): %s", routine, ptr, value, count,
                   device_num, report_error_get());
      api_finding(routine, report_error_get());
      report_error_clear();
      rc = EINVAL;
      break;
    }
  }
  free(buf);
  return rc;
}

EXPORT void *omp_target_memset(void *ptr, int value, size_t count,
                               int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  api_memset("omp_target_memset", ptr, value, count, device_num);
  return ptr;
}

/* libomp looks these up by name (clang-abi.md 8). */
EXPORT void *llvm_omp_target_alloc_device(size_t size, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  return api_alloc("llvm_omp_target_alloc_device", size, device_num,
                   TARGET_ALLOC_DEVICE);
}
EXPORT void *llvm_omp_target_alloc_host(size_t size, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  return api_alloc("llvm_omp_target_alloc_host", size, device_num,
                   TARGET_ALLOC_HOST);
}
EXPORT void *llvm_omp_target_alloc_shared(size_t size, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  return api_alloc("llvm_omp_target_alloc_shared", size, device_num,
                   TARGET_ALLOC_SHARED);
}
EXPORT void llvm_omp_target_free_device(void *ptr, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  api_free("llvm_omp_target_free_device", ptr, device_num);
}
EXPORT void llvm_omp_target_free_host(void *ptr, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  api_free("llvm_omp_target_free_host", ptr, device_num);
}
EXPORT void llvm_omp_target_free_shared(void *ptr, int device_num) {
  ompt_set_codeptr(__builtin_return_address(0));
  api_free("llvm_omp_target_free_shared", ptr, device_num);
}
