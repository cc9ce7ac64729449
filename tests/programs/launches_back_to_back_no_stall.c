/* launches_back_to_back_no_stall.c - 100000 empty target regions back to
 * back, as fast as the host can post them: the device's server thread
 * sleeps between some of them, and every request must wake it.
 * repeat: 5
 * expect: no launch waits for the server's 1 s sleep timeout (a wake lost
 * between the server's last look at its slot and its futex wait stalled
 * one launch in about half the runs for exactly 1 s); all regions run.
 * The bound (0.9 s for one empty region) is not a speed figure: a lost wake
 * costs the whole timeout, anything else costs microseconds. */
#include <omp.h>
#include <stdio.h>
#include "check.h"

#define LAUNCHES 100000

/* A device global: the regions take no arguments and map nothing, so the
 * host posts them as fast as it can. */
int ran;
#pragma omp declare target(ran)

/* One region per call: clang 16 grows main's stack by each target region's
 * launch arguments in a loop (32 bytes a time: 100000 overflow it, on
 * LLVM's runtime too). */
__attribute__((noinline)) static void launch(void) {
#pragma omp target
  ran++;
}

int main(void) {
  double worst = 0;
  for (int i = 0; i < LAUNCHES; i++) {
    double t0 = omp_get_wtime();
    launch();
    double took = omp_get_wtime() - t0;
    if (took > worst)
      worst = took;
  }
#pragma omp target update from(ran)
  CHECK_EQ(ran, LAUNCHES);
  if (worst >= 0.9)
    printf("one launch took %.3f s: the server slept through its request\n",
           worst);
  CHECK(worst < 0.9);
  return check_finish();
}
