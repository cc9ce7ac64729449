/* subreaper_wait_all.c - the program is a child subreaper
 * (PR_SET_CHILD_SUBREAPER, as service managers and container init
 * programs are; it sets it and re-executes itself, so that device 0 starts
 * early under it), offloads, has its device process killed and restarted,
 * and then reaps all its children with `while (wait(NULL) > 0)`.
 * expect-stderr-not: cannot start
 * expect: the loop ends at once with exactly the program's own two
 * children (no supervisor of a device became its child), and after the
 * restart no zombie of the runtime is left among its children. */
#define _GNU_SOURCE
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "reexec.h"

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

static int as_subreaper(void) {
  int dev = 0;
  int on = 0;
  CHECK(prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 && on);
  CHECK_EQ(triple(5, &dev), 15);
  for (int i = 0; i < 2; i++)
    if (fork() == 0)
      _exit(0);
  if (dev != getpid()) { /* a device process: kill it, it restarts */
    CHECK_EQ(kill(dev, SIGKILL), 0);
    /* Gone once its supervisor has recorded its end and reaped it: then
     * the next region finds it died while idle (100 ms were not always
     * enough under qemu on a loaded machine). */
    for (int i = 0; i < 500 && kill(dev, 0) == 0; i++)
      usleep(10 * 1000);
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

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--subreaper") == 0)
    return as_subreaper();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
    return 2;
  char *args[] = {argv[0], "--subreaper", NULL};
  reexec_self(argv[0], args);
  return 2;
}
