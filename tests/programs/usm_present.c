/* usm_present.c - under `requires unified_shared_memory` every host object
 * is present on the device: `present` maps of objects never mapped are
 * accepted, as LLVM's runtime accepts them.
 * cflags: -O2 -fopenmp-version=51
 * ppc64le-skip: requires unified_shared_memory, which simdevice serves by running kernels in the (x86-64) host process
 * expect-stderr-not: present|fatal|error
 * expect: target, target data, enter data and exit data with map(present,
 * ...) of a static array, a stack variable and a heap section reached
 * through a global pointer, none mapped before, all run and see the host's
 * memory (writes from the device are seen on the host). */
#include <omp.h>
#include <stdlib.h>
#include "check.h"

#pragma omp requires unified_shared_memory

#define N 512
static int table[N];
double *global_ptr; /* malloc'ed, as users write it */

int main(void) {
  for (int i = 0; i < N; i++)
    table[i] = i;
  global_ptr = malloc(N * sizeof *global_ptr);
  for (int i = 0; i < N; i++)
    global_ptr[i] = 0.5 * i;
  int scalar = 7;

  /* A region: present objects never mapped. */
#pragma omp target map(present, tofrom : table, scalar)                       \
    map(present, to : global_ptr[0:N])
  {
    for (int i = 0; i < N; i++)
      table[i] += (int)(2 * global_ptr[i]);
    scalar *= 6;
  }
  CHECK_EQ(table[N - 1], 2 * (N - 1));
  CHECK_EQ(scalar, 42);

  /* A data region and the unstructured forms. */
#pragma omp target data map(present, alloc : global_ptr[0:N])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      global_ptr[i] = 1.0;
  }
  CHECK(global_ptr[0] == 1.0 && global_ptr[N - 1] == 1.0);
#pragma omp target enter data map(present, to : table[0:N / 2])
#pragma omp target map(present, alloc : table[0:N / 2])
  table[0] = -1;
#pragma omp target exit data map(present, from : table[0:N / 2])
  CHECK_EQ(table[0], -1);
#pragma omp target exit data map(present, release : scalar)
  CHECK_EQ(scalar, 42);
  free(global_ptr);
  return check_finish();
}
/* mpi-skip: requires unified_shared_memory, which a remote device cannot give (init_device refuses it by name) */
