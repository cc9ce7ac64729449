/* mpi_pingpong.c - Open MPI's own transfer between two ranks, as
 * tests/bench/mpi.sh compares simdevice-mpi with, in the shape of each
 * direction of a copy to a remote device:
 *  - "pingpong_<size>_GBps": rank 0 sends SIZE bytes, rank 1 answers with
 *    8 bytes (host -> device: the data one way, a small reply back);
 *  - "pingpong_back_<size>_GBps": rank 0 sends 8 bytes, rank 1 answers with
 *    SIZE bytes (device -> host: a small request, the data back), so that
 *    each direction is set against Open MPI moving the same bytes the same
 *    way between the same two ranks (Open MPI's receiver does the copy of a
 *    large message, CMA: the two directions copy on different ranks' CPUs);
 * 64 KiB, 1, 4 and 16 MiB, each the median of 21 after 3 warm-ups, timed on
 * rank 0 from its first send to its last receive, as remote_transfer.c
 * times a copy; and the 8-byte round trip in us. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One round trip: `out` bytes from rank 0, `back` bytes from rank 1. */
static void round_trip(char *buf, int out, int back, int rank) {
  char small[8] = {0};
  char *to1 = out > 8 ? buf : small, *to0 = back > 8 ? buf : small;
  if (rank == 0) {
    MPI_Send(to1, out, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(to0, back, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(to1, out, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(to0, back, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
  }
}

static double median_seconds(char *buf, int out, int back, int rank) {
  double t[21];
  for (int i = -3; i < 21; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    round_trip(buf, out, back, rank);
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
  double small = median_seconds(buf, 8, 8, rank);
  if (rank == 0)
    printf("pingpong_8B_roundtrip_us %.2f us\n", small * 1e6);
  for (int back = 0; back < 2; back++)
    for (int s = 0; s < 4; s++) {
      double t = back ? median_seconds(buf, 8, sizes[s], rank)
                      : median_seconds(buf, sizes[s], 8, rank);
      if (rank == 0)
        printf("pingpong_%s%dKiB_GBps %.3f GB/s\n", back ? "back_" : "",
               sizes[s] >> 10, sizes[s] / t / 1e9);
    }
  free(buf);
  MPI_Finalize();
  return 0;
}
