/* mpi_pingpong.c - Open MPI's own transfer between two ranks, as
 * tests/bench/mpi.sh compares simdevice-mpi with: rank 0 sends SIZE bytes,
 * rank 1 answers with 8 bytes (the shape of a transfer to a remote device:
 * data one way, a small reply back). Prints "pingpong_<size>_GBps value
 * GB/s" for 64 KiB, 1, 4 and 16 MiB (median of 21 after 3 warm-ups) and
 * the 8-byte round trip in us. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_seconds(char *buf, int size, int rank) {
  double t[21];
  char ack[8] = {0};
  for (int i = -3; i < 21; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(ack, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(ack, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    if (i >= 0)
      t[i] = MPI_Wtime() - t0;
  }
  qsort(t, 21, sizeof t[0], cmp);
  return t[10];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static const int sizes[] = {64 << 10, 1 << 20, 4 << 20, 16 << 20};
  char *buf = malloc(16 << 20);
  memset(buf, 1, 16 << 20);
  double small = median_seconds(buf, 8, rank);
  if (rank == 0)
    printf("pingpong_8B_roundtrip_us %.2f us\n", small * 1e6);
  for (int s = 0; s < 4; s++) {
    double t = median_seconds(buf, sizes[s], rank);
    if (rank == 0)
      printf("pingpong_%dKiB_GBps %.3f GB/s\n", sizes[s] >> 10,
             sizes[s] / t / 1e9);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
