// A device pointer kept past `target exit data` of a 64 MiB array, used by
// a kernel after a second array of the same size was mapped: the kernel
// must fault on freed device memory, not read the second array's data
// (issue 30, item 13: from 64 MiB on, the freed block went to the next
// allocation at once and the kernel read 2 where the program kept 1).
// simtarget-only
// cflags: -O2
// expect-exit: 1
// expect-stderr: freed device memory \(the 67108864-byte device allocation
#include <stdio.h>
#include <stdlib.h>
#define N ((64u << 20) / sizeof(double))
double *first, *second;
int main(void) {
  first = malloc(N * sizeof *first);
  second = malloc(N * sizeof *second);
  for (size_t i = 0; i < N; i++) {
    first[i] = 1;
    second[i] = 2;
  }
  double *kept = NULL;
#pragma omp target enter data map(to: first[0:N])
#pragma omp target data use_device_ptr(first)
  kept = first;
#pragma omp target exit data map(release: first[0:N])
#pragma omp target enter data map(to: second[0:N])
  double seen = 0;
#pragma omp target is_device_ptr(kept) map(from: seen)
  seen = kept[0];
  printf("read %g through the kept pointer\n", seen);
#pragma omp target exit data map(release: second[0:N])
  free(first);
  free(second);
  return 0;
}
