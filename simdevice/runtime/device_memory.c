/*
 * device_memory.c - the device memory routines (omp_target_alloc,
 * omp_target_is_present, omp_target_memcpy, ..., omp_get_mapped_ptr and
 * LLVM's llvm_omp_target_* allocators) as device code may refer to them.
 *
 * They are host routines: they work on the host's mapping tables and on
 * device memory seen from the host (OpenMP 5.0, 3.6: "When called from
 * within a target region the effect of this routine is unspecified"; GCC's
 * libgomp does not support them there either). Yet an image refers to them
 * whenever a `declare target` region is left open around host helpers that
 * call them, and LLVM loads such an image (its CPU images reach the host
 * libomptarget). So they are defined here, under the version node images
 * bind them to (VERS1.0, libomptarget's: exports.map), and the image loads;
 * calling one in a kernel stops the kernel with a message naming the routine
 * (the device process ends; the host names the kernel), never a wrong
 * answer.
 *
 * Locks: none.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt_internal.h"

/* Says which routine device code called and why it cannot run here, then
 * ends the kernel as a fault would. */
static void refuse(const char *routine) __attribute__((noreturn));
static void refuse(const char *routine)
{
  rt_error("%s was called in device code: the device memory routines are host routines (their "
           "effect in a target region is unspecified, OpenMP 5.0 section 3.6), so the kernel "
           "stops here; call %s on the host, outside the target region",
           routine, routine);
  abort();
}

/* The prototypes of libomptarget's routines (omp.h and LLVM's
 * omptarget.h); this library includes neither. */
EXPORT void *omp_target_alloc(size_t size, int device_num);
EXPORT void omp_target_free(void *device_ptr, int device_num);
EXPORT int omp_target_is_present(const void *ptr, int device_num);
EXPORT int omp_target_is_accessible(const void *ptr, size_t size, int device_num);
EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                             size_t src_offset, int dst_device, int src_device);
EXPORT int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size, int num_dims,
                                  const size_t *volume, const size_t *dst_offsets,
                                  const size_t *src_offsets, const size_t *dst_dimensions,
                                  const size_t *src_dimensions, int dst_device, int src_device);
EXPORT int omp_target_memcpy_async(void *dst, const void *src, size_t length, size_t dst_offset,
                                   size_t src_offset, int dst_device, int src_device,
                                   int depobj_count, void *depobj_list);
EXPORT int omp_target_memcpy_rect_async(void *dst, const void *src, size_t element_size,
                                        int num_dims, const size_t *volume,
                                        const size_t *dst_offsets, const size_t *src_offsets,
                                        const size_t *dst_dimensions,
                                        const size_t *src_dimensions, int dst_device,
                                        int src_device, int depobj_count, void *depobj_list);
EXPORT void *omp_target_memset(void *ptr, int value, size_t count, int device_num);
EXPORT void *omp_target_memset_async(void *ptr, int value, size_t count, int device_num,
                                     int depobj_count, void *depobj_list);
EXPORT int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr, size_t size,
                                    size_t device_offset, int device_num);
EXPORT int omp_target_disassociate_ptr(const void *host_ptr, int device_num);
EXPORT void *omp_get_mapped_ptr(const void *ptr, int device_num);
EXPORT void *llvm_omp_target_alloc_device(size_t size, int device_num);
EXPORT void *llvm_omp_target_alloc_host(size_t size, int device_num);
EXPORT void *llvm_omp_target_alloc_shared(size_t size, int device_num);
EXPORT void llvm_omp_target_free_device(void *device_ptr, int device_num);
EXPORT void llvm_omp_target_free_host(void *device_ptr, int device_num);
EXPORT void llvm_omp_target_free_shared(void *device_ptr, int device_num);
EXPORT void *llvm_omp_target_lock_mem(void *ptr, size_t size, int device_num);
EXPORT void llvm_omp_target_unlock_mem(void *ptr, int device_num);

EXPORT void *omp_target_alloc(UNUSED size_t size, UNUSED int device_num)
{
  refuse("omp_target_alloc");
}

EXPORT void omp_target_free(UNUSED void *device_ptr, UNUSED int device_num)
{
  refuse("omp_target_free");
}

EXPORT int omp_target_is_present(UNUSED const void *ptr, UNUSED int device_num)
{
  refuse("omp_target_is_present");
}

EXPORT int omp_target_is_accessible(UNUSED const void *ptr, UNUSED size_t size,
                                    UNUSED int device_num)
{
  refuse("omp_target_is_accessible");
}

EXPORT int omp_target_memcpy(UNUSED void *dst, UNUSED const void *src, UNUSED size_t length,
                             UNUSED size_t dst_offset, UNUSED size_t src_offset,
                             UNUSED int dst_device, UNUSED int src_device)
{
  refuse("omp_target_memcpy");
}

EXPORT int omp_target_memcpy_rect(UNUSED void *dst, UNUSED const void *src,
                                  UNUSED size_t element_size, UNUSED int num_dims,
                                  UNUSED const size_t *volume, UNUSED const size_t *dst_offsets,
                                  UNUSED const size_t *src_offsets,
                                  UNUSED const size_t *dst_dimensions,
                                  UNUSED const size_t *src_dimensions, UNUSED int dst_device,
                                  UNUSED int src_device)
{
  refuse("omp_target_memcpy_rect");
}

EXPORT int omp_target_memcpy_async(UNUSED void *dst, UNUSED const void *src,
                                   UNUSED size_t length, UNUSED size_t dst_offset,
                                   UNUSED size_t src_offset, UNUSED int dst_device,
                                   UNUSED int src_device, UNUSED int depobj_count,
                                   UNUSED void *depobj_list)
{
  refuse("omp_target_memcpy_async");
}

EXPORT int omp_target_memcpy_rect_async(
    UNUSED void *dst, UNUSED const void *src, UNUSED size_t element_size, UNUSED int num_dims,
    UNUSED const size_t *volume, UNUSED const size_t *dst_offsets,
    UNUSED const size_t *src_offsets, UNUSED const size_t *dst_dimensions,
    UNUSED const size_t *src_dimensions, UNUSED int dst_device, UNUSED int src_device,
    UNUSED int depobj_count, UNUSED void *depobj_list)
{
  refuse("omp_target_memcpy_rect_async");
}

EXPORT void *omp_target_memset(UNUSED void *ptr, UNUSED int value, UNUSED size_t count,
                               UNUSED int device_num)
{
  refuse("omp_target_memset");
}

EXPORT void *omp_target_memset_async(UNUSED void *ptr, UNUSED int value, UNUSED size_t count,
                                     UNUSED int device_num, UNUSED int depobj_count,
                                     UNUSED void *depobj_list)
{
  refuse("omp_target_memset_async");
}

EXPORT int omp_target_associate_ptr(UNUSED const void *host_ptr, UNUSED const void *device_ptr,
                                    UNUSED size_t size, UNUSED size_t device_offset,
                                    UNUSED int device_num)
{
  refuse("omp_target_associate_ptr");
}

EXPORT int omp_target_disassociate_ptr(UNUSED const void *host_ptr, UNUSED int device_num)
{
  refuse("omp_target_disassociate_ptr");
}

EXPORT void *omp_get_mapped_ptr(UNUSED const void *ptr, UNUSED int device_num)
{
  refuse("omp_get_mapped_ptr");
}

EXPORT void *llvm_omp_target_alloc_device(UNUSED size_t size, UNUSED int device_num)
{
  refuse("llvm_omp_target_alloc_device");
}

EXPORT void *llvm_omp_target_alloc_host(UNUSED size_t size, UNUSED int device_num)
{
  refuse("llvm_omp_target_alloc_host");
}

EXPORT void *llvm_omp_target_alloc_shared(UNUSED size_t size, UNUSED int device_num)
{
  refuse("llvm_omp_target_alloc_shared");
}

EXPORT void llvm_omp_target_free_device(UNUSED void *device_ptr, UNUSED int device_num)
{
  refuse("llvm_omp_target_free_device");
}

EXPORT void llvm_omp_target_free_host(UNUSED void *device_ptr, UNUSED int device_num)
{
  refuse("llvm_omp_target_free_host");
}

EXPORT void llvm_omp_target_free_shared(UNUSED void *device_ptr, UNUSED int device_num)
{
  refuse("llvm_omp_target_free_shared");
}

EXPORT void *llvm_omp_target_lock_mem(UNUSED void *ptr, UNUSED size_t size,
                                      UNUSED int device_num)
{
  refuse("llvm_omp_target_lock_mem");
}

EXPORT void llvm_omp_target_unlock_mem(UNUSED void *ptr, UNUSED int device_num)
{
  refuse("llvm_omp_target_unlock_mem");
}
