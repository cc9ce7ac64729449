/* shm_registration_exit.c - libomp's /dev/shm registration files after a
 * mandatory failure. A child (this program run again) runs a parallel region
 * and a kernel, then a kernel that writes a host address: offloading is
 * mandatory, so it ends with status 1. The parent then looks for files named
 * after the child and after its device process.
 * simtarget-only
 * cflags: -O2
 * expect-stderr: kernel `[^`]+` wrote address 0x[0-9a-f]+ \(not device memory\)
 * expect: the child exits with status 1 and leaves no
 * __KMP_REGISTERED_LIB_<pid>_<uid> file in /dev/shm or /tmp, nor does its
 * device process (before, the _exit(1) skipped libomp's cleanup and every
 * failing run left one file). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "reexec.h"

int *volatile host_flag; /* a host address the failing kernel writes */

static int child(void) {
  int threads = 0, value = 0;
#pragma omp parallel reduction(+ : threads)
  threads += 1;
#pragma omp target map(from : value)
  value = 42;
  printf("child: %d threads, kernel gave %d\n", threads, value);
  fflush(stdout);
  static int flag;
  host_flag = &flag;
  int *p = host_flag;
#pragma omp target is_device_ptr(p)
  *p = 1;
  return 3; /* not reached under mandatory offload */
}

static time_t child_started;

/* Registration files of `pid` in /dev/shm and /tmp written since the child
 * started: an older file of that name was left by an earlier process that
 * had the same pid (other programs killed or failed before this fix). */
static int registrations(long pid) {
  char path[128];
  int n = 0;
  const char *dirs[] = {"/dev/shm", "/tmp"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/__KMP_REGISTERED_LIB_%ld_%d", dirs[i],
             pid, (int)getuid());
    struct stat st;
    if (stat(path, &st) == 0 && st.st_mtime >= child_started) {
      printf("left behind: %s\n", path);
      n++;
    }
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) return child();
  int err[2];
  if (pipe(err) != 0) return 2;
  fflush(stdout);
  child_started = time(NULL);
  pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    dup2(err[1], 2);
    close(err[0]);
    close(err[1]);
    char *const child_argv[] = {argv[0], "child", NULL};
    reexec_self("/proc/self/exe", child_argv);
    _exit(2);
  }
  close(err[1]);
  /* Forward the child's stderr and find its device's pid in it. */
  static char text[1 << 16];
  size_t len = 0;
  ssize_t n;
  while (len < sizeof text - 1 &&
         (n = read(err[0], text + len, sizeof text - 1 - len)) > 0)
    len += (size_t)n;
  text[len] = '\0';
  close(err[0]);
  fputs(text, stderr);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  CHECK_EQ(registrations(pid), 0);
  const char *dev = strstr(text, "(pid ");
  CHECK(dev != NULL);
  if (dev) CHECK_EQ(registrations(strtol(dev + 5, NULL, 10)), 0);
  return check_finish();
}
/* mpi-skip: a child it starts (fork, or itself run again) is not an MPI rank and gets no remote device */
