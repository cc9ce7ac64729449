/* wait_all_children.c - a program that offloads, then reaps "all its
 * children" with wait() and counts SIGCHLD, as shells and test drivers do.
 * expect: wait() finds no child that the OpenMP runtime created (it returns
 * ECHILD at once instead of blocking), no SIGCHLD arrives, and offloading
 * still works afterwards. */
#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static volatile sig_atomic_t sigchld_seen;
static void on_sigchld(int sig) { (void)sig; sigchld_seen++; }

static int triple(int v) {
  int out = 0;
#pragma omp target map(from : out) firstprivate(v)
  out = v * 3;
  return out;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigchld;
  sigaction(SIGCHLD, &sa, NULL);
  CHECK_EQ(triple(5), 15);
#pragma omp target nowait
  { }
#pragma omp taskwait
  alarm(20); /* a wait() that blocks on a runtime's child fails the test */
  int reaped = 0;
  while (wait(NULL) > 0)
    reaped++;
  int err = errno;
  alarm(0);
  CHECK_EQ(reaped, 0);
  CHECK_EQ(err, ECHILD);
  CHECK_EQ(triple(7), 21);
  CHECK_EQ(sigchld_seen, 0);
  return check_finish();
}
