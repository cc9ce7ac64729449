/* vg_log_whole.c - a correct program: Valgrind's output on the device
 * processes reaches stderr whole, none of it lost and none twice, though
 * simdevice reads it from Valgrind's log file as commands end: what
 * Valgrind writes as a device process exits (its statistics, asked for
 * with VALGRIND_OPTS=--stats=yes) comes once per process: from a child's
 * that dies in a faulting kernel, another child's whose program leaves
 * with _exit (no teardown: the device process ends when it sees its host
 * gone), and the parent's that exits at the program's end; and no race is
 * reported.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=helgrind VALGRIND_OPTS=--stats=yes
 * vg-expect-times: 3 ^--[0-9]+-- +errormgr: .*errlist searches
 * vg-expect-times: 3 ^--[0-9]+-- +translate: +fast
 * vg-expect-not: .
 * vg-stderr-not: simdevice: Valgrind
 * expect: no report, each process's statistics once */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static int *host_only; /* a global pointer never mapped: the child's bug */

static void faulting_child(void) {
  static int value = 7;
  host_only = &value;
#pragma omp target
  *host_only = 1; /* host address in device code: the device process dies */
  _exit(0);       /* not reached: the construct fails the program */
}

static void leaving_child(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 42;
  _exit(x == 42 ? 0 : 1);
}

/* Runs `child` in a child process; its exit status. */
static int in_child(void (*child)(void)) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0)
    child();
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

int main(void) {
  CHECK(in_child(faulting_child) > 0);
  CHECK_EQ(in_child(leaving_child), 0);
  long sum = 0;
  int a[256];
  for (int i = 0; i < 256; i++)
    a[i] = i;
#pragma omp target teams distribute parallel for num_teams(2) \
    num_threads(2) map(to : a) reduction(+ : sum)
  for (int i = 0; i < 256; i++)
    sum += a[i];
  CHECK_EQ(sum, 256 * 255 / 2);
  return check_finish();
}
