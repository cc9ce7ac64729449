/* early_start_sigpipe.c - main ignores SIGPIPE, and its stdout is a pipe
 * whose reader has gone; device code prints (device 0 was started while
 * the program loaded, when SIGPIPE still had its default action). The
 * program runs itself as a child with such a stdout.
 * expect-stderr-not: killed by signal|died|restart
 * expect: the device does not die of SIGPIPE: its writes fail as the
 * program's own do, and the region completes with its result. */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "reexec.h"

static int child(void) {
  signal(SIGPIPE, SIG_IGN);
  int out = 0;
#pragma omp target map(from : out)
  {
    for (int i = 0; i < 100; i++)
      printf("device line %d of a pipe nobody reads\n", i);
    out = 42;
  }
  if (out != 42)
    fprintf(stderr, "child: the region's result is %d\n", out);
  return out == 42 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--child") == 0)
    return child();
  int p[2];
  CHECK_EQ(pipe(p), 0);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 1);
    close(p[0]);
    close(p[1]);
    char *args[] = {argv[0], "--child", NULL};
    reexec_self(argv[0], args);
    _exit(127);
  }
  close(p[0]); /* the reader goes before the child writes */
  close(p[1]);
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (WIFSIGNALED(status))
    printf("child killed by signal %d\n", WTERMSIG(status));
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
