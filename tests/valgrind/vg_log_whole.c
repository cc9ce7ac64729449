/* vg_log_whole.c - a correct program: Valgrind's output on the device
 * processes reaches stderr whole, none of it lost and none twice, though
 * simdevice reads it from Valgrind's log file as commands end: what
 * Valgrind writes as a device process exits (its statistics, asked for
 * with VALGRIND_OPTS=--stats=yes) comes once per process, from the
 * child's that dies in a faulting kernel and from the parent's that exits
 * at the program's end; and no race is reported.
 * simtarget-only
 * versions: 14 19
 * cflags: -O2 -g
 * env: SIMDEVICE_VALGRIND=helgrind VALGRIND_OPTS=--stats=yes
 * vg-expect-times: 2 ^--[0-9]+-- +errormgr: .*errlist searches
 * vg-expect-times: 2 ^--[0-9]+-- +translate: +fast
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

int main(void) {
  fflush(stdout);
  pid_t child = fork();
  if (child == 0)
    faulting_child();
  int status = 0;
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0);
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
