/* mapped_ptr.c - omp_get_mapped_ptr (OpenMP 5.1; declared by clang 16+).
 * versions: 16 19 22
 * expect: NULL for an unmapped address, the device address while mapped,
 * the host address itself for the initial device. */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

int main(void) {
  int dev = omp_get_default_device();
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = i;
  CHECK(omp_get_mapped_ptr(buf, dev) == NULL);
  CHECK(omp_get_mapped_ptr(buf, omp_get_initial_device()) == buf);
  int *seen = NULL;
#pragma omp target data map(to : buf)
  {
    int *mapped = omp_get_mapped_ptr(buf, dev);
    CHECK(mapped != NULL && mapped != buf);
#pragma omp target data use_device_addr(buf)
    seen = &buf[0];
    CHECK(seen == mapped);
    /* An interior address translates by the same offset. */
    CHECK(omp_get_mapped_ptr(&buf[5], dev) == mapped + 5);
    int from_device = -1;
#pragma omp target is_device_ptr(mapped) map(from : from_device)
    from_device = mapped[7] + 1000 * omp_is_initial_device();
    CHECK_EQ(from_device, 7);
  }
  CHECK(omp_get_mapped_ptr(buf, dev) == NULL);
  return check_finish();
}
