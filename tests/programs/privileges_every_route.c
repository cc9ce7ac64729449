/* privileges_every_route.c - a program started as root changes its ids and
 * groups through every glibc call that can, back and forth, and offloads
 * right after each change: the device takes them at each launch without
 * reading them every time (libomptarget counts these calls), so a route
 * that is not counted leaves the kernel with the old ids.
 * simtarget-only
 * expect: after each change the kernel sees the program's real, effective
 * and saved ids and its groups: setuid-family calls, setgroups,
 * initgroups, syscall(SYS_setresuid) and, on x86-64, an inline system call
 * no wrapper sees (found by the plugin's periodic full read: the program
 * waits 30 ms before it offloads). Not root: says so and passes.
 * Simtarget-only: LLVM's runtime runs kernels in the program's threads,
 * where they pass trivially. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

struct ids {
  unsigned uid[3], gid[3];
  int ngroups;
  unsigned groups[8];
};

#pragma omp declare target
static void read_ids(struct ids *out) {
  uid_t u[3];
  gid_t g[3], list[8];
  getresuid(&u[0], &u[1], &u[2]);
  getresgid(&g[0], &g[1], &g[2]);
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 3; i++) {
    out->uid[i] = u[i];
    out->gid[i] = g[i];
  }
  out->ngroups = getgroups(8, list);
  for (int i = 0; i < out->ngroups && i < 8; i++)
    out->groups[i] = list[i];
}
#pragma omp end declare target

/* The kernel's ids against the program's, after the change `what`. */
static void expect_device_follows(const char *what) {
  struct ids host, dev;
  read_ids(&host);
#pragma omp target map(from : dev)
  read_ids(&dev);
  if (memcmp(&host, &dev, sizeof host) != 0)
    printf("after %s: program uid %u/%u/%u gid %u/%u/%u groups %d; kernel "
           "uid %u/%u/%u gid %u/%u/%u groups %d\n",
           what, host.uid[0], host.uid[1], host.uid[2], host.gid[0],
           host.gid[1], host.gid[2], host.ngroups, dev.uid[0], dev.uid[1],
           dev.uid[2], dev.gid[0], dev.gid[1], dev.gid[2], dev.ngroups);
  CHECK(memcmp(&host, &dev, sizeof host) == 0);
}

#if defined(__x86_64__)
/* setresuid through the instruction itself: no library function sees it. */
static long inline_setresuid(long r, long e, long s) {
  long rc;
  __asm__ volatile("syscall"
                   : "=a"(rc)
                   : "0"((long)SYS_setresuid), "D"(r), "S"(e), "d"(s)
                   : "rcx", "r11", "memory");
  return rc;
}
#endif

int main(void) {
  if (geteuid() != 0) {
    printf("not root: skipped\nPASS\n");
    return 0;
  }
  gid_t nobody_group = 65534, both[2] = {65534, 4};
  expect_device_follows("start");
  CHECK_EQ(setegid(65534), 0);
  expect_device_follows("setegid");
  CHECK_EQ(setegid(0), 0);
  expect_device_follows("setegid back");
  CHECK_EQ(seteuid(65534), 0);
  expect_device_follows("seteuid");
  CHECK_EQ(seteuid(0), 0);
  expect_device_follows("seteuid back");
  CHECK_EQ(setreuid((uid_t)-1, 65534), 0);
  expect_device_follows("setreuid");
  CHECK_EQ(setreuid((uid_t)-1, 0), 0);
  CHECK_EQ(setregid((gid_t)-1, 65534), 0);
  expect_device_follows("setreuid back, setregid");
  CHECK_EQ(setregid((gid_t)-1, 0), 0);
  CHECK_EQ(setresgid((gid_t)-1, (gid_t)-1, 65534), 0);
  expect_device_follows("setregid back, setresgid");
  CHECK_EQ(setresgid((gid_t)-1, (gid_t)-1, 0), 0);
  CHECK_EQ(setgroups(2, both), 0);
  expect_device_follows("setgroups");
  CHECK_EQ(initgroups("root", 0), 0);
  expect_device_follows("initgroups");
  CHECK_EQ(setgroups(1, &nobody_group), 0);
  CHECK_EQ(syscall(SYS_setresuid, -1, 65534, -1), 0);
  expect_device_follows("setgroups, syscall(SYS_setresuid)");
  CHECK_EQ(syscall(SYS_setresuid, -1, 0, -1), 0);
  expect_device_follows("syscall(SYS_setresuid) back");
#if defined(__x86_64__)
  CHECK_EQ(inline_setresuid(-1, 65534, -1), 0);
  struct timespec wait = {0, 30 * 1000000};
  nanosleep(&wait, NULL);
  expect_device_follows("an inline setresuid");
  CHECK_EQ(inline_setresuid(-1, 0, -1), 0);
  nanosleep(&wait, NULL);
  expect_device_follows("an inline setresuid back");
#endif
  CHECK_EQ(setgid(65534), 0);
  CHECK_EQ(setuid(65534), 0);
  expect_device_follows("setgid, setuid");
  return check_finish();
}
/* mpi-skip: changes the program's credentials, which the device rank (another process, maybe on another machine) does not follow */
