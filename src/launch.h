/*
 * launch.h - running one target region: map, build the kernel's argument
 * list, launch, unmap; and the device-id resolution every entry point shares.
 */
#ifndef SIMTARGET_LAUNCH_H
#define SIMTARGET_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "maps.h"

/* What an entry point wants done with device id `device_id`. */
enum target_resolution {
  TARGET_ON_DEVICE = 0, /* *dev is ready to use */
  TARGET_ON_HOST,       /* the initial device, or offloading disabled: run
                           the host version without an error */
  TARGET_FAILED,        /* a cause was recorded with report_error_set */
};

/* Resolve -1 to the default device, check the range and make the device
 * ready. -2/-3 are handled by the callers (they loop over devices). */
HIDDEN enum target_resolution target_resolve(int64_t device_id,
                                             struct device **dev);

/* Where the kernel's implicit dyn_ptr parameter goes (KernelArgs version
 * 3: first; 4 and later: last, the entry clang 23 appends to the arrays,
 * which interface.c takes off before the mapping sees them). Its value is
 * NULL: CPU kernels never read it (clang-abi.md 6). */
enum launch_dyn_ptr {
  LAUNCH_DYN_PTR_NONE = 0,
  LAUNCH_DYN_PTR_FIRST,
  LAUNCH_DYN_PTR_LAST,
};

struct launch_request {
  void *host_ptr;           /* the region id: key of the kernel's entry */
  struct map_args args;
  int32_t num_teams;        /* as the compiler passed them */
  int32_t thread_limit;
  uint64_t tripcount;
  enum launch_dyn_ptr dyn_ptr; /* the kernel's implicit dyn_ptr parameter */
  uint32_t kargs_version;   /* KernelArgs version; 0: an older entry point */
};

/* Run one target region on a ready device. Returns 0, or -1 with the cause
 * recorded (the caller applies the failure policy). */
HIDDEN int launch_region(struct device *dev, const struct launch_request *req);
/* The dispatch stage of an asynchronous region: the same steps, queued on
 * `rec` (src/async.h) with the end-of-construct work deferred; completion
 * comes from async_record_poll/wait. On failure (-1) nothing is left in
 * flight and the mappings are undone as for launch_region. */
struct async_record;
HIDDEN int launch_region_async(struct device *dev,
                               const struct launch_request *req,
                               struct async_record *rec);

/* Tripcount pushed by __kmpc_push_target_tripcount(_mapper) for the next
 * launch on the calling thread (clang 13/14). */
HIDDEN void launch_push_tripcount(int64_t device_id, uint64_t tripcount);
HIDDEN uint64_t launch_pop_tripcount(int64_t device_id);

#endif
