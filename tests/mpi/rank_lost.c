/* rank_lost.c - the device rank is lost while a kernel runs: argv[1] is
 * the signal (KILL: it dies; STOP: it hangs) that a helper sends to the
 * newest process whose command line matches $RANK_PATTERN, 1 s into a
 * 4-second kernel. The construct must fail with the cause (the rank ended,
 * or did not answer within SIMDEVICE_TIMEOUT), not hang, and nothing of the
 * device may be left running afterwards (tests/mpi.sh checks).
 * expect-exit: 1 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "sh -c 'sleep 1; pkill -%s -n -f \"%s\"' &",
           argc > 1 ? argv[1] : "KILL", getenv("RANK_PATTERN"));
  if (system(cmd) != 0)
    return 2;
#pragma omp target map(tofrom : x)
  {
    double t = omp_get_wtime();
    while (omp_get_wtime() - t < 4) {
    }
    x = 2;
  }
  printf("x=%d\n", x);
  return 0;
}
