/*
 * api_memspace.h - the memory-space hooks libomp 21+ calls for OpenMP 6.0's
 * device memory spaces (__tgt_get_mem_resources, __tgt_omp_alloc,
 * __tgt_omp_free, exported from api_memspace.c; declared for programs in
 * include/omptarget.h), and the resource numbers they hand libomp.
 */
#ifndef SIMTARGET_API_MEMSPACE_H
#define SIMTARGET_API_MEMSPACE_H

#include <stdbool.h>

#include "report.h"

/* A resource is one device's memory: device memory (kernels of that device
 * alone reach it) or, with host access, its shared memory (also mapped in
 * the host at the same address). */
#define API_RESOURCE(device, host_access) ((device) * 2 + ((host_access) ? 1 : 0))
#define API_RESOURCE_DEVICE(resource) ((resource) / 2)
#define API_RESOURCE_HOST_ACCESS(resource) (((resource) % 2) != 0)

#endif
