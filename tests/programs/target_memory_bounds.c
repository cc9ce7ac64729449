/* target_memory_bounds.c - device memory routines that reach past the end of
 * a device allocation: omp_target_memcpy and omp_target_memset one 8 KiB
 * array too far, then a host array associated with a device buffer half its
 * size and updated.
 * simtarget-only
 * cflags: -O2
 * expect-exit: 1
 * expect-stdout: ^memcpy refused, memset refused, neighbour intact$
 * expect-stderr: omp_target_memcpy.*data_submit of 16384 bytes at device 0x[0-9a-f]+\.\.0x[0-9a-f]+ on device 0 runs 8192 bytes past the end of the 8192-byte device allocation 0x[0-9a-f]+\.\.0x
 * expect: each copy past the end of `buffer` is refused with the range and the
 * allocation named, and the mapped array placed right after it on the device
 * keeps its values (before, both routines returned success and overwrote it,
 * and its corrupted copy came back to the host). The update of the oversized
 * association is the last construct: it fails under mandatory offload. */
#include <dlfcn.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* omp_target_memset is OpenMP 5.2: the libomptarget that clang 13-16 link
 * against lacks it, so it is looked up in the runtime actually loaded. */
typedef void *memset_fn(void *ptr, int value, size_t count, int device_num);

#define N 1024 /* doubles: 8 KiB, two pages */

double *buffer;      /* a device buffer from omp_target_alloc */
double neighbour[N]; /* mapped right after it */
double source[2 * N];
double associated[2 * N];

/* Fetches the device copy of `neighbour` and says whether it is intact. */
static int neighbour_intact(void) {
  memset(neighbour, 0, sizeof neighbour);
#pragma omp target update from(neighbour)
  for (int i = 0; i < N; i++)
    if (neighbour[i] != i) return 0;
  return 1;
}

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  buffer = omp_target_alloc(N * sizeof(double), dev);
  if (!buffer) return 2;
  for (int i = 0; i < N; i++) neighbour[i] = i;
  for (int i = 0; i < 2 * N; i++) source[i] = -1.0;
#pragma omp target enter data map(to : neighbour)

  int copied = omp_target_memcpy(buffer, source, sizeof source, 0, 0, dev, host);
  CHECK(copied != 0);
  CHECK(neighbour_intact());
  int memcpy_ok = copied != 0 && neighbour_intact();

  memset_fn *target_memset = (memset_fn *)dlsym(RTLD_DEFAULT, "omp_target_memset");
  CHECK(target_memset != NULL);
  if (target_memset) target_memset(buffer, 0xff, sizeof source, dev);
  CHECK(neighbour_intact());
  /* A copy inside the allocation still works. */
  CHECK_EQ(omp_target_memcpy(buffer, source, N * sizeof(double), 0, 0, dev, host), 0);
  if (memcpy_ok && neighbour_intact())
    printf("memcpy refused, memset refused, neighbour intact\n");
  fflush(stdout);

  CHECK_EQ(omp_target_associate_ptr(associated, buffer, sizeof associated, 0, dev), 0);
#pragma omp target update to(associated)
  printf("update of the oversized association was not refused\n");
#pragma omp target exit data map(from : neighbour)
  for (int i = 0; i < N; i++)
    if (neighbour[i] != i) { printf("neighbour[%d] = %g\n", i, neighbour[i]); break; }
  omp_target_free(buffer, dev);
  check_finish();
  return 3;
}
