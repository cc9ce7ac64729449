/* fork_before_first_region.c - a program forks before its first target
 * region, and the child offloads first, while the parent's device 0 was
 * started early (when the program registered its images, before main).
 * simtarget-only
 * expect-stderr-not: restarted|cannot use|parent's device
 * expect: the child gets a device process of its own (not the parent's
 * early-started one), its results are right; after the child has exited
 * the parent's device is still its first one (no restart), with another
 * process than the child's, and the parent's results are right. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define N 4096

/* The pid of the process that runs the region, and a sum computed there. */
static long device_sum(long add, int *pid, int *on_host) {
  long sum = 0;
  int p = 0, host = 1;
#pragma omp target teams distribute parallel for reduction(+ : sum) \
    map(tofrom : p, host)
  for (int i = 0; i < N; i++) {
    sum += i + add;
    if (i == 0) {
      p = (int)getpid();
      host = omp_is_initial_device();
    }
  }
  *pid = p;
  *on_host = host;
  return sum;
}

int main(void) {
  long want = (long)N * (N - 1) / 2;
  int pipefd[2];
  if (pipe(pipefd) != 0) return 2;
  pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(pipefd[0]);
    int pid = 0, host = 1, bad = 0;
    for (int i = 0; i < 5; i++) {
      int p = 0;
      bad += device_sum(1, &p, &host) != want + N || host;
      if (i == 0) pid = p;
      bad += p != pid;
    }
    if (write(pipefd[1], &pid, sizeof pid) != (ssize_t)sizeof pid) bad++;
    close(pipefd[1]);
    _exit(bad ? 1 : 0); /* its device goes with it */
  }
  close(pipefd[1]);
  int child_device = 0;
  CHECK_EQ(read(pipefd[0], &child_device, sizeof child_device),
           (long)sizeof child_device);
  close(pipefd[0]);
  int status = 0;
  CHECK_EQ(waitpid(child, &status, 0), child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  /* exit() (not _exit) in a second child runs its exit handlers, which
   * must not reach the parent's device either. */
  pid_t second = fork();
  if (second == 0) exit(0);
  CHECK_EQ(waitpid(second, &status, 0), second);
  int first = 0, again = 0, host = 1;
  CHECK_EQ(device_sum(0, &first, &host), want);
  CHECK(!host);
  CHECK(first != 0 && first != child_device && first != getpid());
  CHECK_EQ(device_sum(2, &again, &host), want + 2 * N);
  CHECK_EQ(again, first);
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
