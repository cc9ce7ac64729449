/* where.c - where the device runs, as its kernel sees it, beside the host's
 * view: the host name, the pid namespace, whether the program's own binary
 * (argv[0], an absolute path) and the host's /dev/shm entries are there.
 * tests/mpi.sh runs it with the device rank on a second "machine"
 * (tests/mpi/node2.sh) and checks that the device saw none of the host's:
 * so everything the device had, the image included, came over MPI.
 * Prints "host: NAME PIDNS" and "device: NAME PIDNS binary=0|1 shm=N"
 * (N: how many of the host's /dev/shm names the device sees). */
#include <dirent.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NAMES 64

#pragma omp declare target
static void whoami(char *host, char *ns) {
  gethostname(host, 64);
  host[63] = '\0';
  ssize_t n = readlink("/proc/self/ns/pid", ns, 63);
  ns[n > 0 ? n : 0] = '\0';
}
#pragma omp end declare target

int main(int argc, char **argv) {
  (void)argc;
  char host[64], ns[64], dhost[64] = "", dns[64] = "";
  char shm[NAMES][64] = {{0}};
  int count = 0, binary = -1, seen = 0;
  DIR *d = opendir("/dev/shm");
  for (struct dirent *e; d != NULL && count < NAMES && (e = readdir(d));)
    if (e->d_name[0] != '.')
      snprintf(shm[count++], 64, "/dev/shm/%s", e->d_name);
  if (d != NULL)
    closedir(d);
  char path[256];
  snprintf(path, sizeof path, "%s", argv[0]);
  whoami(host, ns);
#pragma omp target map(from : dhost, dns, binary, seen) map(to : path, shm, count)
  {
    whoami(dhost, dns);
    binary = access(path, F_OK) == 0;
    seen = 0;
    for (int i = 0; i < count; i++)
      seen += access(shm[i], F_OK) == 0;
  }
  printf("host: %s %s (%d /dev/shm names)\n", host, ns, count);
  printf("device: %s %s binary=%d shm=%d\n", dhost, dns, binary, seen);
  return 0;
}
