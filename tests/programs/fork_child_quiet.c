/* fork_child_quiet.c - a program that has offloaded forks a child that
 * never offloads and returns from main (its exit runs the OpenMP runtime's
 * unloading, on devices that are its parent's).
 * versions: 13 14 15 19 22
 * (libomp 16 itself hangs in a forked child's exit, also on LLVM's runtime)
 * expect: the child prints nothing at exit (no "registering 0 'declare
 * target indirect' functions failed") and exits with status 0. */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int v = 0;
#pragma omp target map(from : v)
  v = 7;
  CHECK_EQ(v, 7);
  int err[2];
  CHECK_EQ(pipe(err), 0);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], 2);
    close(err[0]);
    close(err[1]);
    return 0;
  }
  close(err[1]);
  char buf[1024] = "";
  ssize_t n, got = 0;
  while ((n = read(err[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0)
    got += n;
  buf[got] = '\0';
  int status = -1;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ((int)got, 0);
  if (got > 0)
    printf("the child printed: %s\n", buf);
  return check_finish();
}
