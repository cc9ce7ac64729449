/* privileges_dropped_after_offload.c - a service started as root maps its
 * data and offloads, then drops to `nobody` (setgroups, setresgid,
 * setresuid) and goes on offloading on the same mapped data.
 * cflags: -O2
 * simtarget-only
 * versions: 13 14 15 19 22
 * expect-stderr-not: restarted|error
 * expect: after the drop a kernel runs as nobody (it cannot open
 * /etc/shadow, which it could as root before; the device used to keep
 * root's credentials until a restart), while the data mapped before the
 * drop and the device's `declare target` global keep their values (the
 * device takes the new credentials, it is not restarted); `nowait`
 * kernels (the device's queues) run as nobody too. Not root: says so and
 * passes. Not clang 16: its host libomp fails an assertion after the
 * drop (temp_reg_status_file_name) and hangs, on LLVM's own runtime too;
 * simtarget-only, although LLVM 13-15 and 19 pass it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

#define N 4096
int launches;
#pragma omp declare target(launches)

/* What a kernel finds: its effective uid, and errno of opening the shadow
 * file (0: it could). */
static void probe(int *uid, int *open_errno) {
  int u = -1, e = -1;
#pragma omp target map(from : u, e)
  {
    launches++;
    u = (int)geteuid();
    int fd = open("/etc/shadow", O_RDONLY);
    e = fd >= 0 ? 0 : errno;
    if (fd >= 0)
      close(fd);
  }
  *uid = u;
  *open_errno = e;
}

int main(void) {
  if (geteuid() != 0 || access("/etc/shadow", F_OK) != 0) {
    printf("not root (or no /etc/shadow): skipped\nPASS\n");
    return 0;
  }
  static double data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
#pragma omp target enter data map(to : data)
  int uid, err;
  probe(&uid, &err);
  CHECK_EQ(uid, 0);
  CHECK_EQ(err, 0);
  CHECK_EQ(setgroups(0, NULL), 0);
  CHECK_EQ(setresgid(65534, 65534, 65534), 0);
  CHECK_EQ(setresuid(65534, 65534, 65534), 0);
  probe(&uid, &err);
  CHECK_EQ(uid, 65534);
  CHECK_EQ(err, EACCES);
#pragma omp target nowait
  for (int i = 0; i < N; i++)
    data[i] *= 2;
  int async_uid = -1;
#pragma omp target map(from : async_uid) nowait
  async_uid = (int)geteuid();
#pragma omp taskwait
  CHECK_EQ(async_uid, 65534);
  int count = 0;
#pragma omp target map(from : count)
  count = launches;
#pragma omp target exit data map(from : data)
  CHECK_EQ(count, 2); /* the probes' launches: no restart reset it */
  for (int i = 0; i < N; i++)
    CHECK_EQ(data[i], 2.0 * i);
  return check_finish();
}
/* mpi-skip: drops the program's credentials, which the device rank (another process, maybe on another machine) does not follow */
