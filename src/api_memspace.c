/*
 * api_memspace.c - what libomp 21+ asks the offload runtime for OpenMP 6.0's
 * device memory spaces (omp_get_device_memspace,
 * omp_get_devices_and_host_memspace, ... and omp_alloc/omp_free with an
 * allocator made on such a space). libomp looks these up by name; LLVM's
 * own libomptarget has none of them, so with it those memory spaces stay
 * empty.
 *
 *   int   __tgt_get_mem_resources(int num_devices, const int *devices,
 *                                 int host_access, omp_memspace_handle_t ms,
 *                                 int *resources);
 *         how many resources make up the memory of these devices (reachable
 *         from the host too when host_access), and, when `resources` is not
 *         NULL, their numbers; 0 when there are none (a bad device).
 *   void *__tgt_omp_alloc(size_t size, omp_allocator_handle_t allocator);
 *   void  __tgt_omp_free(void *ptr, omp_allocator_handle_t allocator);
 *         omp_alloc/omp_free with an allocator libomp made on a memory space
 *         that has resources: the allocator is libomp's kmp_allocator_t,
 *         whose first field is the memory space, a kmp_memspace_t *
 *         { omp_memspace_handle_t memspace; int num_resources;
 *           int *resources; ... } (libomp's kmp.h, LLVM 21+).
 *
 * simtarget's resources: one per device, its device memory, or with host
 * access its shared memory (api_memspace.h); the predefined memory space
 * asked for (default, large capacity, constant, high bandwidth, low
 * latency) makes no difference: a simdevice device has one memory. A
 * memory space of several devices has several resources; memory is
 * allocated from a space of one resource only, since no simdevice memory is
 * reachable from two devices (each is a process of its own): the program
 * picks one with omp_get_submemspace, and omp_alloc on the whole space
 * fails saying so.
 *
 * Like the other memory routines these never end the program: a bad
 * argument is printed, naming omp_alloc or omp_free, and gives 0 or NULL.
 *
 * Thread safety: as api.c; nothing here keeps state.
 */
#include <stdint.h>
#include <stdio.h>

#include "api.h"
#include "api_memspace.h"
#include "device.h"
#include "report.h"

#define EXPORT __attribute__((visibility("default")))

/* libomp's handles: predefined allocators and memory spaces are small
 * numbers (up to kmp_max_mem_alloc/kmp_max_mem_space), others point to its
 * structures. */
enum { LIBOMP_MAX_PREDEFINED = 1024 };

/* The leading fields of libomp's kmp_memspace_t and kmp_allocator_t. */
struct libomp_memspace {
  uintptr_t memspace;
  int num_resources;
  int *resources;
};
struct libomp_allocator {
  uintptr_t memspace;
};

/* A predefined memory space: default (99), large capacity (1), constant
 * (2), high bandwidth (3), low latency (4). */
static bool predefined_memspace(uintptr_t ms) {
  return ms == 99 || (ms >= 1 && ms <= 4);
}

/* Whether devices[i] (0 <= i < k) was listed before. */
static bool listed_before(const int *devices, int k) {
  for (int j = 0; j < k; j++)
    if (devices[j] == devices[k])
      return true;
  return false;
}

EXPORT int __tgt_get_mem_resources(int num_devices, const int *devices,
                                   int host_access, uintptr_t memspace,
                                   int *resources) {
  const char *who = "omp_get_device(s)_memspace (__tgt_get_mem_resources)";
  if (num_devices <= 0 || !devices) {
    report_error("%s: %d devices at %p: at least one device is needed", who,
                 num_devices, (const void *)devices);
    return 0;
  }
  if (!predefined_memspace(memspace)) {
    report_error("%s: memory space %#lx is not one of the predefined ones",
                 who, (unsigned long)memspace);
    return 0;
  }
  int n = devices_visible_count(), count = 0;
  for (int i = 0; i < num_devices; i++) {
    struct device *dev;
    if (devices[i] < 0 || devices[i] >= n) {
      report_error("%s: device %d (entry %d) is not a device: valid ids are "
                   "0..%d",
                   who, devices[i], i, n - 1);
      return 0;
    }
    if (api_device(who, devices[i], &dev) != 0)
      return 0;
    if (listed_before(devices, i))
      continue;
    if (resources)
      resources[count] = API_RESOURCE(devices[i], host_access);
    count++;
  }
  return count;
}

/* The one resource of `allocator`'s memory space, or -1 after printing why
 * there is none (`routine` is omp_alloc or omp_free). */
static int allocator_resource(const char *routine, uintptr_t allocator) {
  if (allocator <= LIBOMP_MAX_PREDEFINED) {
    report_error("%s: allocator %lu is predefined: libomp allocates from it "
                 "itself, the offload runtime only from a device memory "
                 "space",
                 routine, (unsigned long)allocator);
    return -1;
  }
  uintptr_t space = ((const struct libomp_allocator *)allocator)->memspace;
  const struct libomp_memspace *ms = (const void *)space;
  if (space <= LIBOMP_MAX_PREDEFINED || ms->num_resources <= 0 ||
      !ms->resources) {
    report_error("%s: allocator %#lx is not made on a device memory space "
                 "(one made by omp_get_device_memspace or another routine of its kind)",
                 routine, (unsigned long)allocator);
    return -1;
  }
  if (ms->num_resources > 1) {
    report_error("%s: allocator %#lx's memory space has %d resources "
                 "(devices %d, %d, ...): no simdevice memory is reachable "
                 "from two devices (each is a process of its own); take one "
                 "with omp_get_submemspace",
                 routine, (unsigned long)allocator, ms->num_resources,
                 API_RESOURCE_DEVICE(ms->resources[0]),
                 API_RESOURCE_DEVICE(ms->resources[1]));
    return -1;
  }
  int r = ms->resources[0], n = devices_visible_count();
  if (r < 0 || API_RESOURCE_DEVICE(r) >= n) {
    report_error("%s: resource %d of allocator %#lx is none of ours "
                 "(devices 0..%d)",
                 routine, r, (unsigned long)allocator, n - 1);
    return -1;
  }
  return r;
}

EXPORT void *__tgt_omp_alloc(size_t size, uintptr_t allocator) {
  int r = allocator_resource("omp_alloc", allocator);
  if (r < 0)
    return NULL;
  return api_alloc("omp_alloc", size, API_RESOURCE_DEVICE(r),
                   API_RESOURCE_HOST_ACCESS(r) ? TARGET_ALLOC_SHARED
                                               : TARGET_ALLOC_DEVICE);
}

EXPORT void __tgt_omp_free(void *ptr, uintptr_t allocator) {
  if (!ptr)
    return;
  int r = allocator_resource("omp_free", allocator);
  if (r >= 0)
    api_free("omp_free", ptr, API_RESOURCE_DEVICE(r));
}
