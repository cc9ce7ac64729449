/* Host and shared memory (llvm_omp_target_alloc_host / _shared): one
 * pointer in host code and in the kernel, no map clause. The host fills
 * both, the kernel reads the host block and writes the shared one. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

void *llvm_omp_target_alloc_host(size_t size, int device);
void *llvm_omp_target_alloc_shared(size_t size, int device);

int main(void) {
  int dev = omp_get_default_device(), n = 3000;
  double *in = llvm_omp_target_alloc_host(n * sizeof *in, dev);
  double *out = llvm_omp_target_alloc_shared(n * sizeof *out, dev);
  if (in == NULL || out == NULL) {
    printf("host_shared: no memory\n");
    return 1;
  }
  for (int i = 0; i < n; i++)
    in[i] = i * 0.25, out[i] = -1;
#pragma omp target teams distribute parallel for is_device_ptr(in, out)
  for (int i = 0; i < n; i++)
    out[i] = in[i] * in[i] + 1;
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += out[i];
  printf("host_shared %.2f\n", sum);
  omp_target_free(in, dev);
  omp_target_free(out, dev);
  return 0;
}
