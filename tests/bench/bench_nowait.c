/*
 * bench_nowait.c - 256 `target nowait` regions, each keeping the device busy
 * for about 1 ms without using a host CPU (the region sleeps), then one
 * taskwait. Prints "metric value unit" lines for tests/bench.sh:
 *   nowait_regions      how many regions
 *   nowait_serial_ms    the same regions without nowait, one after another
 *   nowait_wall_ms      the nowait regions, dispatch to taskwait
 *   nowait_overlap_x    serial / wall: how many regions ran at once
 * Figures, not a test: nothing here fails on a slow machine.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define REGIONS 256
#define SLEEP_US 1000

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void) {
  static int done[REGIONS];
  /* Warm up what happens once per process and is not region overlap:
   * device start and image load (the target region), and the host libomp
   * starting its hidden helper threads at the first nowait task (3-4 ms of
   * the first batch on a 2-core machine). Both runtimes get the same. */
#pragma omp target map(tofrom : done[0:1])
  done[0] = 0;
#pragma omp target map(tofrom : done[0:1]) nowait
  done[0] = 0;
#pragma omp taskwait

  double t0 = now_ms();
  for (int i = 0; i < REGIONS; i++) {
#pragma omp target map(tofrom : done[i:1])
    {
      usleep(SLEEP_US);
      done[i] += 1;
    }
  }
  double serial = now_ms() - t0;

  t0 = now_ms();
  for (int i = 0; i < REGIONS; i++) {
#pragma omp target map(tofrom : done[i:1]) nowait
    {
      usleep(SLEEP_US);
      done[i] += 1;
    }
  }
#pragma omp taskwait
  double wall = now_ms() - t0;

  int ok = 1;
  for (int i = 0; i < REGIONS; i++)
    ok &= done[i] == 2;
  printf("nowait_regions %d n\n", REGIONS);
  printf("nowait_serial_ms %.3f ms\n", serial);
  printf("nowait_wall_ms %.3f ms\n", wall);
  printf("nowait_overlap_x %.2f x\n", serial / wall);
  printf("nowait_results_ok %d n\n", ok);
  return ok ? 0 : 1;
}
