/* hybrid.c - an MPI + OpenMP program: each rank offloads to its own device
 * (a device rank the plugin spawned for it, SIMDEVICE_MPI_SPAWN=1), works on
 * its slice in a target region that also prints, then the ranks combine the
 * results with MPI_Allreduce. The program initialises and finalizes MPI
 * itself: the plugin must not (an MPI_Init of its own would make this
 * MPI_Init_thread fail), and the program's world holds only its own ranks.
 * expect: world size as started, every rank's sum exact; rank 0 prints PASS. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define N 100000

static double slice[N];

int main(int argc, char **argv) {
  int provided, rank, size, was = 0;
  MPI_Initialized(&was);
  if (was || MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) !=
                 MPI_SUCCESS) {
    printf("FAIL: MPI was initialised before main (%d)\n", was);
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < N; i++)
    slice[i] = rank * N + i;
  double sum = 0;
  int remote = -1;
#pragma omp target map(tofrom : slice, sum, remote)
  {
    remote = !omp_is_initial_device();
    for (int i = 0; i < N; i++) {
      slice[i] *= 2;
      sum += slice[i];
    }
    printf("rank's device %d done\n", omp_get_device_num());
  }
  double total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double n = (double)size * N, want = n * (n - 1); /* 2 * sum of 0..n-1 */
  int ok = remote == 1 && total == want && omp_get_num_devices() == 1;
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0)
    printf(all ? "PASS world %d\n" : "FAIL world %d\n", size);
  MPI_Finalize();
  return !all;
}
