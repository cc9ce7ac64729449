/* fork_child_exit.c - a program that has offloaded forks children that only
 * exit (exit() runs the OpenMP runtime's exit handlers in the child).
 * versions: 13 14 15 19 22
 * (libomp 16 itself hangs in a forked child's exit, also on LLVM's runtime)
 * expect: the parent's device is not touched by its children: its kernels,
 * images and mapped data keep working after every child has exited; several
 * host threads keep offloading while the children come and go. */
#include <omp.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define N 512
static double *data; /* a global pointer, as users write */

static void scale(double *d, double factor) {
#pragma omp target teams distribute parallel for map(tofrom : d[0:N])
  for (int i = 0; i < N; i++) d[i] *= factor;
}

int main(void) {
  data = malloc(N * sizeof *data);
  if (!data) return 2;
  for (int i = 0; i < N; i++) data[i] = i;
  double sum = 0;
#pragma omp target data map(tofrom : data[0:N])
  {
    scale(data, 2.0);
    for (int round = 0; round < 3; round++) {
      pid_t child = fork();
      if (child == 0)
        exit(0); /* the child's exit handlers unregister the images */
      int status = 0;
      CHECK(waitpid(child, &status, 0) == child);
      CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      scale(data, 1.0);
    }
  }
  /* After the children: new kernels on several threads still work. */
  int bad = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
  {
    int v = omp_get_thread_num() + 1, got = 0;
#pragma omp target map(from : got) firstprivate(v)
    got = v * 3;
    bad += got != v * 3;
  }
  CHECK_EQ(bad, 0);
  for (int i = 0; i < N; i++) sum += data[i];
  CHECK(sum == 2.0 * (N - 1) * N / 2);
  free(data);
  return check_finish();
}
