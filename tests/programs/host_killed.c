/* host_killed.c - a process that offloads is killed (SIGKILL, as the OOM
 * killer does) in the middle of a long synchronous kernel.
 * expect: the process that ran its kernels (the device) ends with it within
 * a few seconds; it does not keep running the kernel as an orphan. */
#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

/* 1 while `pid` exists and is not a zombie. */
static int running(pid_t pid) {
  char path[64], state = '?';
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1) state = '?';
  fclose(f);
  return state != 'Z' && state != 'X' && state != '?';
}

int main(void) {
  int report[2];
  if (pipe(report) != 0) return 2;
  pid_t host = fork(); /* the "host program" that gets killed */
  if (host == 0) {
    close(report[0]);
    int kernel_pid = 0;
#pragma omp target map(from : kernel_pid)
    kernel_pid = (int)getpid();
    if (write(report[1], &kernel_pid, sizeof kernel_pid) != sizeof kernel_pid)
      _exit(3);
    volatile int forever = 1;
#pragma omp target map(to : forever)
    while (forever) usleep(1000);
    _exit(0);
  }
  close(report[1]);
  int kernel_pid = 0;
  CHECK(read(report[0], &kernel_pid, sizeof kernel_pid) == sizeof kernel_pid);
  struct timespec pause = {0, 300 * 1000000L};
  nanosleep(&pause, NULL); /* the long kernel is running now */
  kill(host, SIGKILL);
  int status = 0;
  CHECK(waitpid(host, &status, 0) == host);
  int alive = kernel_pid > 0;
  for (int i = 0; i < 100 && alive; i++) { /* up to 5 s */
    struct timespec t = {0, 50 * 1000000L};
    nanosleep(&t, NULL);
    alive = running(kernel_pid);
  }
  if (alive) kill(kernel_pid, SIGKILL); /* do not leave it behind */
  CHECK(kernel_pid > 0);
  CHECK_EQ(alive, 0);
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
