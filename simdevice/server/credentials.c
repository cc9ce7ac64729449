/*
 * credentials.c - the device process takes the program's credentials
 * (SIMDEV_CMD_CREDENTIALS): the program dropped its privileges (or took
 * them back) after the device started, and its kernels must run with what
 * the program has when it offloads. Ids through glibc, which applies them
 * to every thread of the process (the queue slots' and the kernels' too).
 *
 * A credential change clears the parent-death signal: it is armed again,
 * and a device whose supervisor is gone by then exits.
 *
 * Locking: none; the main slot's thread, between commands.
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server.h"

#define MAX_GROUPS 64

/* Whether the process's supplementary groups are `groups`. */
static int groups_are(const gid_t *groups, int n) {
  gid_t now[MAX_GROUPS];
  int have = getgroups(MAX_GROUPS, now);
  return have == n && memcmp(now, groups, (size_t)n * sizeof *now) == 0;
}

/* Sets groups, gids and uids; root first where the process may take it
 * again (its real or saved uid is 0), so that a program going back to root
 * is followed too. */
static int take_ids(const uint64_t *a, const gid_t *groups, int n, char *msg,
                    size_t len) {
  uid_t r, e, s;
  getresuid(&r, &e, &s);
  if (e != 0 && (r == 0 || s == 0) && setresuid(-1, 0, -1) != 0) {
    snprintf(msg, len, "setresuid(-1, 0, -1): %s", strerror(errno));
    return -1;
  }
  if (!groups_are(groups, n) && setgroups((size_t)n, groups) != 0) {
    snprintf(msg, len, "setgroups(%d groups): %s", n, strerror(errno));
    return -1;
  }
  if (setresgid((gid_t)a[3], (gid_t)a[4], (gid_t)a[5]) != 0) {
    snprintf(msg, len, "setresgid(%u, %u, %u): %s", (unsigned)a[3],
             (unsigned)a[4], (unsigned)a[5], strerror(errno));
    return -1;
  }
  if (setresuid((uid_t)a[0], (uid_t)a[1], (uid_t)a[2]) != 0) {
    snprintf(msg, len, "setresuid(%u, %u, %u): %s", (unsigned)a[0],
             (unsigned)a[1], (unsigned)a[2], strerror(errno));
    return -1;
  }
  return 0;
}

int credentials_take(uint64_t *a, const unsigned char *groups_in,
                     pid_t supervisor, char *msg, size_t len) {
  if (a[6] > MAX_GROUPS) {
    snprintf(msg, len, "%llu supplementary groups (at most %d)",
             (unsigned long long)a[6], MAX_GROUPS);
    return -1;
  }
  int n = (int)a[6];
  gid_t groups[MAX_GROUPS];
  for (int i = 0; i < n; i++) {
    uint32_t g;
    memcpy(&g, groups_in + 4 * (size_t)i, sizeof g);
    groups[i] = (gid_t)g;
  }
  int rc = take_ids(a, groups, n, msg, len);
  /* Cleared by any credential change, even a failed one's first steps. */
  prctl(PR_SET_PDEATHSIG, (unsigned long)SIGKILL, 0UL, 0UL, 0UL);
  if (supervisor > 0 && getppid() != supervisor) {
    memcheck_before_exit();
    _exit(1); /* the supervisor is gone: so is this device */
  }
  if (rc != 0)
    return -1;
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capget, &h, d) != 0) {
    snprintf(msg, len, "capget: %s", strerror(errno));
    return -1;
  }
  a[0] = d[0].effective | (uint64_t)d[1].effective << 32;
  a[1] = d[0].permitted | (uint64_t)d[1].permitted << 32;
  a[2] = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
  return 0;
}
