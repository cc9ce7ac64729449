/* usm_address.c - requires unified_address: device pointers are host
 * addresses, usable with is_device_ptr and pointer arithmetic on the host.
 * ppc64le-skip: requires unified_shared_memory or unified_address, which simdevice serves by running kernels in the (x86-64) host process
 * versions: 14 16 19 22
 * expect: a program that requires unified_address maps its data as usual,
 * gets device memory from omp_target_alloc that it offsets on the host and
 * passes to kernels with is_device_ptr, and copies with omp_target_memcpy;
 * every result is checked on the host. clang 14 and 22 register no flag
 * for unified_address (only unified_shared_memory), so this program keeps the
 * separate device process (LIBOMPTARGET_INFO=-1 shows kernels run there):
 * device addresses are still valid numbers on the host. */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

#pragma omp requires unified_address

#define N 256

int main(void) {
  int dev_id = omp_get_default_device(), host_id = omp_get_initial_device();
  int *host = malloc(N * sizeof(int));
  int *dev = omp_target_alloc(N * sizeof(int), dev_id);
  if (host == NULL || dev == NULL)
    return 2;
  for (int i = 0; i < N; i++)
    host[i] = i;
#pragma omp target map(tofrom : host[0:N])
  for (int i = 0; i < N; i++)
    host[i] *= 3;
  CHECK_EQ(host[100], 300);
  /* Host arithmetic on a device pointer (unified_address). */
  int *second_half = dev + N / 2;
#pragma omp target is_device_ptr(dev, second_half)
  for (int i = 0; i < N / 2; i++) {
    dev[i] = i;
    second_half[i] = -i;
  }
  CHECK_EQ(omp_target_memcpy(host, dev, N * sizeof(int), 0, 0, host_id, dev_id), 0);
  CHECK_EQ(host[5], 5);
  CHECK_EQ(host[N / 2 + 5], -5);
  omp_target_free(dev, dev_id);
  free(host);
  return check_finish();
}
