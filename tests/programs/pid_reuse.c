/* pid_reuse.c - the device process and its supervisor are both killed,
 * and the device's pid is then taken by an unrelated process (run as root
 * in a pid namespace of its own, where ns_last_pid picks the next pid).
 * env: SIMDEVICE_TIMEOUT=3 SIMTARGET_KEEP_GOING=1
 * expect-stderr-not: did not finish|cannot start
 * expect: the next target region finds the device gone within a fraction
 * of a second (it may fail and run its host version) and the one after runs
 * on a restarted device; the unrelated process is neither waited for nor
 * signalled: it is still running afterwards. Not root: says so and
 * passes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static int triple(int v, int *pid, int *ppid) {
  int out = 0, p = 0, pp = 0;
#pragma omp target map(from : out, p, pp) firstprivate(v)
  {
    out = v * 3;
    p = getpid();
    pp = getppid();
  }
  *pid = p;
  *ppid = pp;
  return out;
}

/* A child that sleeps, with pid `want` if ns_last_pid lets it; its pid. */
static pid_t sleeper_with_pid(pid_t want) {
  int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
  if (fd >= 0) {
    dprintf(fd, "%d", (int)want - 1);
    close(fd);
  }
  pid_t pid = fork();
  if (pid == 0) {
    for (;;)
      pause();
  }
  return pid;
}

static int in_namespace(void) {
  int dev = 0, sup = 0;
  CHECK_EQ(triple(5, &dev, &sup), 15);
  if (dev == getpid()) /* no device process (LLVM's runtime) */
    return check_finish();
  kill(sup, SIGKILL);
  kill(dev, SIGKILL);
  /* Both end; the device (an orphan now) is reaped by PID 1, this
   * process, which frees its pid. */
  for (int i = 0; i < 3000 && waitpid(dev, NULL, __WALL | WNOHANG) != dev; i++)
    usleep(1000); /* until it is this process's to reap, and reaped */
  pid_t other = sleeper_with_pid(dev);
  CHECK_EQ(other, dev);
  int dev2 = 0, sup2 = 0;
  CHECK_EQ(triple(7, &dev2, &sup2), 21);
  CHECK_EQ(triple(8, &dev2, &sup2), 24);
  CHECK(dev2 != dev && dev2 != getpid());
  CHECK_EQ(waitpid(other, NULL, WNOHANG), 0); /* still running */
  kill(other, SIGKILL);
  waitpid(other, NULL, 0);
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
    return in_namespace();
  int status = 0;
  if (init < 0 || waitpid(init, &status, 0) != init)
    return 2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
