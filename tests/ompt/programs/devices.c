/* env: SIMDEVICE_NUM_DEVICES=2
 * ompt: trace
 * Two devices (SIMDEVICE_NUM_DEVICES=2) and the memory routines: a region
 * on device 1, omp_target_alloc / omp_target_memcpy / associate /
 * disassociate / omp_target_free there, each an event naming device 1. */
#include <omp.h>
#include <stdio.h>

#define N 32

int main(void) {
  int host[N], back[N];
  for (int i = 0; i < N; i++)
    host[i] = i, back[i] = 0;
  int dev = 1, me = omp_get_initial_device();
  int *d = omp_target_alloc(N * sizeof(int), dev);
  if (!d || omp_target_memcpy(d, host, N * sizeof(int), 0, 0, dev, me)) {
    puts("FAIL alloc/memcpy");
    return 1;
  }
  omp_target_associate_ptr(back, d, N * sizeof(int), 0, dev);
#pragma omp target device(dev) map(tofrom : back[0:N])
  for (int i = 0; i < N; i++)
    back[i] += 1;
#pragma omp target update from(back[0:N]) device(dev)
  omp_target_disassociate_ptr(back, dev);
  omp_target_free(d, dev);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += back[i] != i + 1;
  puts(bad ? "FAIL" : "PASS");
  return bad != 0;
}
