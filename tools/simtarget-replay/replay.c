/*
 * simtarget-replay - runs a kernel launch recorded by SIMTARGET_RECORD
 * (simdevice/plugin/record.c) again in a fresh simdevice device process,
 * through the plugin's own interface (__tgt_rtl_* of the plugin of the
 * recorded device machine beside this program: libomptarget.rtl.simdevice.so,
 * or libomptarget.rtl.simdevice-ppc64le.so under qemu), and compares the
 * device memory after it with the recording. A recording of another
 * simtarget version than that plugin's, or from a host with another page
 * size, is refused; the device's memory base, stack limit, geometry
 * settings and CPU count are those recorded (launch.c).
 *
 *   simtarget-replay [--times N] [--teams N] [--threads N]
 *                    [--gdb | --valgrind] [--quiet] DIR
 *
 * DIR is one launch (holding manifest.txt) or a SIMTARGET_RECORD folder:
 * then each launch-N in it is replayed in its own child process. Exit 0
 * when every replay matched (identical memory, or the recorded fault with
 * the same message), 1 when one differed, 2 on a usage or setup error.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"

static struct options opt = {.times = 1};

static int usage(void) {
  fprintf(stderr, "usage: simtarget-replay [--times N] [--teams N] "
                  "[--threads N] [--gdb | --valgrind] [--quiet] DIR\n");
  return 2;
}

/* Replays DIR/launch-* in child processes, in launch order. */
static int replay_all(const char *dir) {
  struct dirent **names;
  int n = scandir(dir, &names, NULL, versionsort);
  if (n < 0) {
    fprintf(stderr, "simtarget-replay: %s: %s\n", dir, strerror(errno));
    return 2;
  }
  int worst = 0, found = 0;
  for (int i = 0; i < n; i++) {
    if (strncmp(names[i]->d_name, "launch-", 7) == 0) {
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
      found++;
      fflush(NULL);
      pid_t pid = fork();
      if (pid == 0) {
        int rc = replay_launch(path, &opt);
        fflush(NULL);
        _exit(rc);
      }
      int status = 2;
      if (pid > 0 && waitpid(pid, &status, 0) == pid)
        status = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
      if (status > worst)
        worst = status;
    }
    free(names[i]);
  }
  free(names);
  if (found == 0) {
    fprintf(stderr, "simtarget-replay: %s holds neither manifest.txt nor "
                    "launch-N folders of a recording\n", dir);
    return 2;
  }
  return worst;
}

int main(int argc, char **argv) {
  const char *dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--times") == 0 && i + 1 < argc) {
      opt.times = atoi(argv[++i]);
      if (opt.times < 1)
        return usage();
    } else if ((strcmp(argv[i], "--teams") == 0 ||
                strcmp(argv[i], "--threads") == 0) && i + 1 < argc) {
      int *field = strcmp(argv[i], "--teams") == 0 ? &opt.teams : &opt.threads;
      *field = atoi(argv[++i]);
      if (*field < 1)
        return usage();
    } else if (strcmp(argv[i], "--gdb") == 0) {
      opt.gdb = 1;
    } else if (strcmp(argv[i], "--valgrind") == 0) {
      opt.valgrind = 1;
    } else if (strcmp(argv[i], "--quiet") == 0) {
      opt.quiet = 1;
    } else if (argv[i][0] == '-' || dir != NULL) {
      return usage();
    } else {
      dir = argv[i];
    }
  }
  if (dir == NULL)
    return usage();
  char manifest[PATH_MAX];
  snprintf(manifest, sizeof manifest, "%s/manifest.txt", dir);
  if (access(manifest, R_OK) == 0)
    return replay_launch(dir, &opt);
  return replay_all(dir);
}
