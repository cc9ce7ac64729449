/* nowait_overlap.c - `target nowait` regions on two remote devices run at
 * the same time: each kernel creates its own file, then waits (up to 20 s)
 * for the other's, a rendezvous that only overlapping kernels pass (no
 * timing). The files live in a folder the program names; device code
 * calls libc as on the host (the device is the host CPU), on the machine
 * of its rank: the kernels make the folder there too (a rank on another
 * machine does not see the host's), and remove it at the end. Run with
 * two devices.
 * expect: both kernels meet the other; PASS. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#pragma omp declare target
static int meet(const char *dir, int me) {
  char mine[256], other[256];
  mkdir(dir, 0700); /* (there already on the host's machine) */
  snprintf(mine, sizeof mine, "%s/%d", dir, me);
  snprintf(other, sizeof other, "%s/%d", dir, 1 - me);
  FILE *f = fopen(mine, "w");
  if (f == NULL)
    return 0;
  fclose(f);
  for (int i = 0; i < 2000; i++) { /* 20 s */
    if (access(other, F_OK) == 0)
      return 1;
    usleep(10000);
  }
  return 0;
}

static void clean(const char *dir) {
  char path[256];
  for (int d = 0; d < 2; d++) {
    snprintf(path, sizeof path, "%s/%d", dir, d);
    unlink(path);
  }
  rmdir(dir);
}
#pragma omp end declare target

int main(void) {
  char dir[] = "/tmp/nowait_overlap.XXXXXX";
  if (mkdtemp(dir) == NULL || omp_get_num_devices() < 2) {
    printf("FAIL: setup (%d devices)\n", omp_get_num_devices());
    return 1;
  }
  int met[2] = {0, 0};
  for (int d = 0; d < 2; d++) {
#pragma omp target nowait device(d) map(to : dir) map(from : met[d : 1])
    met[d] = meet(dir, d);
  }
#pragma omp taskwait
  for (int d = 0; d < 2; d++) {
#pragma omp target device(d) map(to : dir)
    clean(dir);
  }
  clean(dir);
  printf(met[0] && met[1] ? "PASS\n" : "FAIL: met %d %d\n", met[0], met[1]);
  return !(met[0] && met[1]);
}
