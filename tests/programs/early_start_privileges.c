/* early_start_privileges.c - a program started as root drops to `nobody`
 * at the top of main, before its first target region, as daemons do
 * (device 0 was started while the program loaded, as root).
 * env: LIBOMPTARGET_INFO=16
 * expect-stderr-not: started again
 * expect: its kernels run with the program's credentials at the time it
 * offloads: uid and gid 65534, no supplementary groups, and /etc/shadow
 * cannot be opened from device code. The device started as root takes the
 * new credentials itself, it is not replaced: a replacement started as
 * `nobody` failed where simtarget lies under a folder only root can enter
 * (a checkout in /root: "exec of .../simdevice-server failed"; run so by
 * tests/private_install.sh). Not root: says so and passes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  if (geteuid() != 0) {
    printf("not root: skipped\nPASS\n");
    return 0;
  }
  CHECK_EQ(setgroups(0, NULL), 0);
  CHECK_EQ(setgid(65534), 0);
  CHECK_EQ(setuid(65534), 0);
  int uid = -1, gid = -1, groups = -1, shadow = -2;
#pragma omp target map(from : uid, gid, groups, shadow)
  {
    uid = (int)geteuid();
    gid = (int)getegid();
    groups = getgroups(0, NULL);
    int fd = open("/etc/shadow", O_RDONLY);
    shadow = fd >= 0 ? 1 : 0;
    if (fd >= 0)
      close(fd);
  }
  CHECK_EQ(uid, 65534);
  CHECK_EQ(gid, 65534);
  CHECK_EQ(groups, 0);
  CHECK_EQ(shadow, 0);
  return check_finish();
}
/* mpi-skip: drops to nobody before its first offload, where the plugin starts MPI: Open MPI's MPI_Init aborts as nobody (Local abort before MPI_INIT completed) */
