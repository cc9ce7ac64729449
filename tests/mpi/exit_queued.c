/* exit_queued.c - main returns (no taskwait) while a remote device runs a
 * `target nowait` kernel and has more work of the program queued behind
 * it: the first region's copy back and a second region's kernel. At the
 * exit simtarget drops what has not started (__tgt_rtl_abandon_queues):
 * the second kernel, which would create the file DIR/second, never runs;
 * the running kernel runs on (it creates DIR/first first), and the
 * program ends with its output and status 0.
 * The second region maps only what `target enter data` mapped before, so
 * it queues its kernel without waiting for the busy device (an allocation
 * would wait for the first kernel, and the region would not be queued by
 * the exit); it comes 0.2 s after the first, which runs by then, and main
 * returns 1 s later, while the first still runs (2 s): the task of the
 * second needs a helper thread to run it before that, which beside three
 * busy loops on 2 CPUs took over 0.3 s in 1 run of 8 (the margin before).
 * Usage: exit_queued DIR (an existing folder).
 * expect: DIR/first exists, DIR/second does not; stderr names both
 * constructs as still running; PASS. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 4096

static int early[N], flag[1];

#pragma omp declare target
static void touch(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f != NULL)
    fclose(f);
}
#pragma omp end declare target

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  char path[512];
  snprintf(path, sizeof path, "%s", dir);
  /* the device started and the image loaded before the regions */
#pragma omp target enter data map(to : path, flag)
#pragma omp target map(from : early[0:N]) nowait
  {
    touch(path, "first");
    double start = omp_get_wtime();
    while (omp_get_wtime() - start < 2.0)
      ;
    for (int i = 0; i < N; i++)
      early[i] = i;
  }
  usleep(200000); /* the first kernel runs, its copy back queued */
#pragma omp target map(tofrom : path, flag) nowait
  {
    touch(path, "second");
    flag[0] = 1;
  }
  usleep(1000000);
  printf("PASS\n");
  return 0;
}
