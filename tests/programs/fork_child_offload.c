/* fork_child_offload.c - a child of fork() offloads while its parent keeps
 * offloading with the device both of them see.
 * simtarget-only
 * expect-stderr: forked child cannot use its parent's device
 * expect: the child does not reach its parent's device (its offload fails
 * with a message that names fork, and exits 1, under OMP_TARGET_OFFLOAD=
 * mandatory); the parent's results are right and its device stays alive. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define N 4096
static long *values;

static long device_sum(long add) {
  long sum = 0;
  const long *v = values;
#pragma omp target teams distribute parallel for reduction(+ : sum) \
    map(to : v[0:N])
  for (int i = 0; i < N; i++) sum += v[i] + add;
  return sum;
}

int main(void) {
  values = malloc(N * sizeof *values);
  if (!values) return 2;
  for (int i = 0; i < N; i++) values[i] = i;
  long want = (long)N * (N - 1) / 2;
  CHECK_EQ(device_sum(0), want);
  int pipefd[2];
  if (pipe(pipefd) != 0) return 2;
  pid_t child = fork();
  if (child == 0) {
    close(pipefd[0]);
    /* Races the parent on the device if it could reach it. */
    for (int i = 0; i < 20; i++) device_sum(1);
    if (write(pipefd[1], "x", 1) != 1) _exit(3);
    exit(0);
  }
  close(pipefd[1]);
  int bad = 0;
  for (int i = 0; i < 200; i++) bad += device_sum(2) != want + 2L * N;
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  char c;
  CHECK(read(pipefd[0], &c, 1) == 0); /* the child never finished offloading */
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  CHECK_EQ(bad, 0);
  CHECK_EQ(device_sum(0), want);
  free(values);
  return check_finish();
}
