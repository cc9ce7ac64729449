/* remote_memcpy.c - omp_target_memcpy between two remote devices, as users
 * write it: 4 MiB and a small odd-sized piece at an offset, device 0 to
 * device 1, then read back on device 1 by a kernel and on the host.
 * Run with two device ranks and LIBOMPTARGET_INFO=0x10: the plugin says the
 * copy went rank to rank (tests/mpi.sh checks that line).
 * expect: both copies land exactly; PASS. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 20) /* ints: 4 MiB */

static int *host_a, *host_b;

int main(void) {
  if (omp_get_num_devices() < 2) {
    printf("FAIL: %d devices\n", omp_get_num_devices());
    return 1;
  }
  int host = omp_get_initial_device();
  host_a = malloc(N * sizeof *host_a);
  host_b = calloc(N, sizeof *host_b);
  for (int i = 0; i < N; i++)
    host_a[i] = i * 3 + 1;
  int *d0 = omp_target_alloc(N * sizeof(int), 0);
  int *d1 = omp_target_alloc(N * sizeof(int), 1);
  if (!d0 || !d1 ||
      omp_target_memcpy(d0, host_a, N * sizeof(int), 0, 0, 0, host) ||
      omp_target_memcpy(d1, d0, N * sizeof(int), 0, 0, 1, 0)) {
    printf("FAIL: alloc or copy\n");
    return 1;
  }
  /* 13 ints at an odd offset, from device 0 to another place on device 1 */
  if (omp_target_memcpy(d1, d0, 13 * sizeof(int), 7 * sizeof(int),
                        1001 * sizeof(int), 1, 0)) {
    printf("FAIL: offset copy\n");
    return 1;
  }
  long bad = 0;
#pragma omp target device(1) is_device_ptr(d1) map(tofrom : bad)
  for (int i = 0; i < N; i++) {
    int want = (i >= 7 && i < 20) ? (i - 7 + 1001) * 3 + 1 : i * 3 + 1;
    if (d1[i] != want)
      bad++;
  }
  omp_target_memcpy(host_b, d1, N * sizeof(int), 0, 0, host, 1);
  for (int i = 20; i < N; i++)
    if (host_b[i] != host_a[i])
      bad++;
  omp_target_free(d0, 0);
  omp_target_free(d1, 1);
  printf(bad ? "FAIL: %ld wrong\n" : "PASS\n", bad);
  return bad != 0;
}
