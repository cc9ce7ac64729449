/* pid1_wait_all.c - the program is PID 1 of its pid namespace, as a
 * container's entrypoint is (run as root: unshare(CLONE_NEWPID), then
 * fork), offloads, has its device process killed and restarted, and then
 * reaps all its children with `while (wait(NULL) > 0)`.
 * expect-stderr-not: cannot start
 * expect: the loop ends at once with exactly the program's own two
 * children (no supervisor of a device became its child), and after the
 * restart no zombie of the runtime is left among its children. Not root:
 * says so and passes. */
#define _GNU_SOURCE
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static int triple(int v, int *pid) {
  int out = 0, p = 0;
#pragma omp target map(from : out, p) firstprivate(v)
  {
    out = v * 3;
    p = getpid();
  }
  *pid = p;
  return out;
}

static int as_pid1(void) {
  int dev = 0;
  CHECK_EQ(getpid(), 1);
  CHECK_EQ(triple(5, &dev), 15);
  for (int i = 0; i < 2; i++)
    if (fork() == 0)
      _exit(0);
  if (dev != getpid()) { /* a device process: kill it, it restarts */
    CHECK_EQ(kill(dev, SIGKILL), 0);
    usleep(100 * 1000);
    int again = 0;
    CHECK_EQ(triple(7, &again), 21);
    CHECK(again != dev);
  }
  alarm(20); /* a wait() that blocks on a runtime's child fails the test */
  int reaped = 0;
  while (wait(NULL) > 0)
    reaped++;
  int err = errno;
  alarm(0);
  CHECK_EQ(reaped, 2);
  CHECK_EQ(err, ECHILD);
  /* No child of any kind has ended unreaped (a zombie per restart). */
  siginfo_t info;
  memset(&info, 0, sizeof info);
  int rc = waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL);
  CHECK(rc != 0 || info.si_pid == 0);
  if (rc == 0 && info.si_pid != 0)
    fprintf(stderr, "zombie child %d left\n", (int)info.si_pid);
  int last = 0;
  CHECK_EQ(triple(9, &last), 27);
  return check_finish();
}

int main(void) {
  if (geteuid() != 0 || unshare(CLONE_NEWPID) != 0) {
    printf("not root or no pid namespace (%s): skipped\nPASS\n",
           strerror(errno));
    return 0;
  }
  fflush(stdout);
  pid_t init = fork();
  if (init == 0)
    return as_pid1();
  int status = 0;
  if (init < 0 || waitpid(init, &status, 0) != init)
    return 2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
