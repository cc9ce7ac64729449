/* init_late.c - an MPI program whose first target region comes before its
 * MPI_Init: the plugin must not initialise MPI behind its back (the
 * program's MPI_Init would then fail), so that construct fails and says to
 * call MPI_Init first. Run with SIMDEVICE_MPI_SPAWN=1.
 * expect-exit: 1
 * expect-stderr: has not called MPI_Init yet */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  printf("x %d\n", x);
  return 0;
}
