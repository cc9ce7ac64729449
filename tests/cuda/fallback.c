/* fallback.c - a clang-compiled offload program for test_cuda_fallback.sh:
 * one teams reduction and one plain target region. Prints how many devices
 * it saw and where the target region ran; exits 0 when the sum is right. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int a[64], sum = 0, on_host = -1;
  for (int i = 0; i < 64; i++)
    a[i] = i;
#pragma omp target teams distribute parallel for map(to : a) reduction(+ : sum)
  for (int i = 0; i < 64; i++)
    sum += a[i];
#pragma omp target map(from : on_host)
  on_host = omp_is_initial_device();
  printf("devices=%d on_host=%d sum=%d\n", omp_get_num_devices(), on_host,
         sum);
  return sum == 64 * 63 / 2 ? 0 : 2;
}
