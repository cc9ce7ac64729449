/*
 * api_uid.h - OpenMP 6.0's device UIDs (omp_get_uid_from_device,
 * omp_get_device_from_uid are exported from api_uid.c) and the device
 * numbers OpenMP 5.2 names.
 */
#ifndef SIMTARGET_API_UID_H
#define SIMTARGET_API_UID_H

#include "report.h"

#define API_INITIAL_DEVICE (-1) /* omp_initial_device */
#define API_INVALID_DEVICE (-2) /* omp_invalid_device */
#define API_HOST_UID "HOST"

/* The UID of device `id` (0 <= id < devices_count()), valid for the whole
 * run; NULL for another id or without memory for the table. */
HIDDEN const char *api_device_uid(int id);

#endif
