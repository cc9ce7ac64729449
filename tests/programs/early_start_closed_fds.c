/* early_start_closed_fds.c - a daemon closes every descriptor above
 * stderr at the top of main, opens its own file (which gets the lowest
 * numbers again) and offloads (device 0 was started while the program
 * loaded, with descriptors of its own).
 * expect-stderr-not: supervisor|cannot start
 * expect: offloading works, and the program's own file is never closed by
 * the runtime: every write to it succeeds and it holds all of them.
 * repeat: 20
 * (The reap of the early device's supervisor closed its pidfd's number,
 * by then one of the program's files, in about 1 run of 20.) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

#define N 1000

int main(void) {
  for (int fd = 3; fd < 1024; fd++)
    close(fd);
  char path[] = "/tmp/early_start_closed_fds.XXXXXX";
  int own[4];
  for (int i = 0; i < 4; i++) /* a few, to cover every reused number */
    own[i] = i == 0 ? mkstemp(path) : open(path, O_WRONLY | O_APPEND);
  unlink(path);
  CHECK(own[0] >= 3);
  CHECK_EQ(write(own[0], "before ", 7), 7);
  int a[N];
  long sum = 0;
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target map(to : a) map(tofrom : sum)
  for (int i = 0; i < N; i++)
    sum += a[i];
  CHECK_EQ(sum, (long)N * (N - 1) / 2);
  for (int i = 1; i < 4; i++)
    CHECK_EQ(write(own[i], "after ", 6), 6);
  char buf[64] = "";
  CHECK_EQ(pread(own[0], buf, sizeof buf - 1, 0), 25);
  CHECK(strcmp(buf, "before after after after ") == 0);
  return check_finish();
}
