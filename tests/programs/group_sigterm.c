/* group_sigterm.c - SIGTERM sent to the program's whole process group, as
 * `timeout`, Ctrl-C (SIGINT), systemd and `docker stop` do; the program
 * handles it to finish its work and save its results. The program makes
 * itself a process group leader and re-executes itself, so that its device
 * (started when it loads) begins inside that group.
 * expect-stderr-not: died|killed by signal|restart
 * expect: the device process does not get the group's signal: the target
 * region after it runs on the same device, with no restart. */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "reexec.h"

static volatile sig_atomic_t terminated;
static void on_term(int sig) { (void)sig; terminated = 1; }

static int triple(int v) {
  int out = 0;
#pragma omp target map(from : out) firstprivate(v)
  out = v * 3;
  return out;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--in-group") != 0) {
    if (setpgid(0, 0) != 0)
      return 2;
    char *args[] = {argv[0], "--in-group", NULL};
    reexec_self(argv[0], args);
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);
  CHECK_EQ(triple(5), 15);
  CHECK_EQ(kill(0, SIGTERM), 0);
  while (!terminated)
    pause();
  struct timespec t = {0, 200 * 1000 * 1000};
  nanosleep(&t, NULL); /* a device that got it has died by now */
  CHECK_EQ(triple(7), 21); /* the results, "saved" */
  return check_finish();
}
