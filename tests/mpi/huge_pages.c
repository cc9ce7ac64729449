/* huge_pages.c - a remote device's memory held while tests/mpi.sh reads
 * the device rank's page mappings (simdevice/mpi/huge_memory.c): 8 MiB
 * copied to the device, "ready" printed, then the program waits (at most
 * 30 s) until the file HOLD_UNTIL names exists, copies the bytes back and
 * checks them. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BYTES (8 << 20)

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  const char *until = getenv("HOLD_UNTIL");
  unsigned char *buf = malloc(BYTES);
  unsigned char *d = omp_target_alloc(BYTES, dev);
  if (buf == NULL || d == NULL || until == NULL) {
    printf("FAIL: no buffer, no device memory or no HOLD_UNTIL\n");
    return 1;
  }
  for (int i = 0; i < BYTES; i++)
    buf[i] = (unsigned char)(i * 7);
  if (omp_target_memcpy(d, buf, BYTES, 0, 0, dev, host) != 0)
    return 1;
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < 300 && access(until, F_OK) != 0; i++)
    usleep(100000);
  memset(buf, 0, BYTES);
  if (omp_target_memcpy(buf, d, BYTES, 0, 0, host, dev) != 0)
    return 1;
  for (int i = 0; i < BYTES; i++)
    if (buf[i] != (unsigned char)(i * 7)) {
      printf("FAIL: byte %d is %d\n", i, buf[i]);
      return 1;
    }
  omp_target_free(d, dev);
  free(buf);
  printf("PASS\n");
  return 0;
}
