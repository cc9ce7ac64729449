/* exit_stuck_devices.c - main() returns while four host threads wait on
 * kernels that never end, one on each of four devices. The program runs
 * itself as a child and times that child's exit.
 * simtarget-only
 * env: SIMDEVICE_NUM_DEVICES=4
 * expect: the child exits with status 0 within 2 s of main's return plus a
 * margin for a loaded machine (under 5 s; the old code took 6 s per
 * device): unloading and releasing give up after 2 s in all, not per
 * device or per step. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "reexec.h"

#define DEVICES 4
static volatile int started;

static void *endless(void *arg) {
  int dev = (int)(long)arg;
  volatile int forever = 1;
  __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
#pragma omp target device(dev) map(to : forever)
  while (forever) usleep(1000);
  return NULL;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int child(int report) {
  for (int d = 0; d < DEVICES; d++) {
    int warm = 0;
#pragma omp target device(d) map(from : warm)
    warm = 1;
    if (warm != 1)
      return 1;
  }
  pthread_t t[DEVICES];
  for (long d = 0; d < DEVICES; d++)
    pthread_create(&t[d], NULL, endless, (void *)d);
  while (started < DEVICES) usleep(1000);
  struct timespec pause = {0, 300 * 1000000L};
  nanosleep(&pause, NULL);
  double at = now_s();
  if (write(report, &at, sizeof at) != sizeof at)
    return 1;
  return 0; /* exit() while four threads wait on their kernels */
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "--child") == 0)
    return child(atoi(argv[2]));
  CHECK_EQ(omp_get_num_devices(), DEVICES);
  int p[2];
  CHECK_EQ(pipe(p), 0);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", p[1]);
    char *args[] = {argv[0], "--child", fd, NULL};
    reexec_self(argv[0], args);
    _exit(127);
  }
  close(p[1]);
  double returned = 0;
  CHECK_EQ(read(p[0], &returned, sizeof returned), (long)sizeof returned);
  int status = -1;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  double took = now_s() - returned;
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(took < 5.0);
  if (took >= 5.0)
    printf("exit took %.1f s\n", took);
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
