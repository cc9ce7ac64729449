/*
 * api_uid.c - OpenMP 6.0's device unique identifiers:
 * omp_get_uid_from_device and omp_get_device_from_uid (LLVM 22 has them in
 * libomptarget; libomp 22 forwards its own weak copies to ours).
 *
 * A UID is "<plugin>-<the plugin's device number>" ("simdevice-0",
 * "cuda-1"), the initial device's is "HOST" (the string LLVM's libomptarget
 * and libomp's fallback use). They stay the same for the whole run, also
 * across a device's restart, and no device is started to name it.
 * omp_invalid_device (-2) has no UID (NULL) and a UID nobody has gives
 * omp_invalid_device, as in the specification and LLVM 22; a device number
 * that is neither a device, the initial device nor omp_initial_device (-1)
 * is an error that names the routine, and gives NULL.
 *
 * Thread safety: the table of UIDs is built once (pthread_once) and only
 * read after that.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_uid.h"
#include "device.h"
#include "plugins.h"
#include "report.h"

#define EXPORT __attribute__((visibility("default")))

enum { UID_LEN = 80 };

static pthread_once_t uid_once = PTHREAD_ONCE_INIT;
static char (*uid_table)[UID_LEN]; /* one per device, NULL without memory */
static int uid_count;

static void uid_build(void) {
  int n = devices_count();
  if (n <= 0)
    return;
  uid_table = calloc((size_t)n, sizeof *uid_table);
  if (!uid_table)
    return;
  for (int i = 0; i < n; i++) {
    struct device *dev = device_get(i);
    snprintf(uid_table[i], UID_LEN, "%s-%d",
             dev && dev->plugin ? dev->plugin->name : "device",
             dev ? (int)dev->rtl_id : i);
  }
  uid_count = n;
}

/* The UID of device `id` (0 <= id < the device count), or NULL when the
 * table could not be built (out of memory, said by the caller). */
const char *api_device_uid(int id) {
  pthread_once(&uid_once, uid_build);
  return id >= 0 && id < uid_count ? uid_table[id] : NULL;
}

EXPORT const char *omp_get_uid_from_device(int device_num) {
  int n = devices_visible_count();
  if (device_num == API_INVALID_DEVICE)
    return NULL;
  if (device_num == API_INITIAL_DEVICE || device_num == n)
    return API_HOST_UID;
  if (device_num < 0 || device_num > n) {
    report_error("omp_get_uid_from_device: device_num %d is not a device: "
                 "valid ids are 0..%d, %d or omp_initial_device (-1) for "
                 "the host",
                 device_num, n - 1, n);
    return NULL;
  }
  const char *uid = api_device_uid(device_num);
  if (!uid)
    report_error("omp_get_uid_from_device: no memory for the UID of "
                 "device %d",
                 device_num);
  return uid;
}

EXPORT int omp_get_device_from_uid(const char *device_uid) {
  int n = devices_visible_count();
  if (!device_uid)
    return API_INVALID_DEVICE;
  if (strcmp(device_uid, API_HOST_UID) == 0)
    return n;
  for (int i = 0; i < n; i++) {
    const char *uid = api_device_uid(i);
    if (uid && strcmp(uid, device_uid) == 0)
      return i;
  }
  return API_INVALID_DEVICE;
}
