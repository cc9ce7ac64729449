/*
 * huge_memory.c - a device rank's device memory on 2 MiB pages where the
 * kernel allows it (huge_memory.h).
 *
 * Why: the host copies a device's bytes back with a receive, and Open MPI's
 * receiver reads a large message out of the sender with process_vm_readv,
 * which pins the sender's pages one at a time. Device memory is a file both
 * the rank and its device process map; a memfd lives on the kernel's
 * internal tmpfs, whose huge pages are off on most machines
 * (shmem_enabled "never"), while a program's malloc'd buffer gets
 * transparent huge pages. Read with process_vm_readv on the 2-core VM,
 * 1 MiB came at 8.9 GB/s from a memfd and at 12-13 GB/s from anonymous
 * memory or from a tmpfs mounted huge=always (simdevice/README.md, "Huge
 * pages for a remote device's memory"). So the file lives on a tmpfs
 * of its own, mounted huge=always but never attached to any directory
 * (fsopen / fsmount): no process sees a mount appear.
 *
 * Creating a tmpfs needs CAP_SYS_ADMIN over the mount namespace. A rank
 * without it forks a helper that makes the tmpfs in user and mount
 * namespaces of its own and hands the open file back; the rank itself
 * never changes namespace or credentials. Where neither works (a
 * container's seccomp filter, an old kernel), or SIMDEVICE_MPI_HUGE_PAGES
 * is 0, the memory is a memfd as for a local device.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "huge_memory.h"

#define HUGE_PAGE_BYTES (2u << 20)

/* A file of `bytes` on a detached tmpfs mounted huge=always, or -1 with
 * errno. Only system calls: the helper child runs it after fork() in a
 * threaded process. */
static int tmpfs_file(const char *size) {
  int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
  if (fs < 0)
    return -1;
  int mnt = -1, fd = -1;
  if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "huge", "always", 0) ==
          0 &&
      syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", size, 0) == 0 &&
      syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
    mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
  int err = errno;
  if (mnt >= 0) {
    fd = openat(mnt, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    err = errno;
    close(mnt); /* the open file keeps the tmpfs */
  }
  close(fs);
  errno = err;
  return fd;
}

/* The helper: new user and mount namespaces, where it is root, the tmpfs
 * file made there and sent over `sock`. Exit status 0 when sent. */
static void __attribute__((noreturn))
helper(int sock, const char *size, const char *uid_map, const char *gid_map) {
  const char *path[] = {"/proc/self/setgroups", "/proc/self/uid_map",
                        "/proc/self/gid_map"};
  const char *text[] = {"deny", uid_map, gid_map};
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
    _exit(1);
  for (int i = 0; i < 3; i++) {
    int f = open(path[i], O_WRONLY | O_CLOEXEC);
    if (f < 0 || write(f, text[i], strlen(text[i])) < 0)
      _exit(1);
    close(f);
  }
  int fd = tmpfs_file(size);
  if (fd < 0)
    _exit(1);
  char cmsg_buf[CMSG_SPACE(sizeof(int))] = {0};
  char byte = 0;
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
                       .msg_control = cmsg_buf,
                       .msg_controllen = sizeof cmsg_buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  _exit(sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : 1);
}

/* The file the helper sent on `sock`, or -1. */
static int receive_file(int sock) {
  char cmsg_buf[CMSG_SPACE(sizeof(int))];
  char byte;
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
                       .msg_control = cmsg_buf,
                       .msg_controllen = sizeof cmsg_buf};
  if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
    return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

/* The tmpfs file made by a helper in namespaces of its own, or -1. */
static int tmpfs_file_by_helper(const char *size) {
  char uid_map[64], gid_map[64];
  snprintf(uid_map, sizeof uid_map, "0 %u 1", (unsigned)geteuid());
  snprintf(gid_map, sizeof gid_map, "0 %u 1", (unsigned)getegid());
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    helper(sv[1], size, uid_map, gid_map);
  }
  close(sv[1]);
  int fd = pid > 0 ? receive_file(sv[0]) : -1;
  close(sv[0]);
  int status;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  return fd;
}

/* The huge tmpfs file made last (a device rank has one device), or -1. */
static int huge_fd = -1;

int huge_memory_file(uint64_t bytes) {
  const char *want = getenv("SIMDEVICE_MPI_HUGE_PAGES");
  if (want == NULL || strcmp(want, "0") != 0) {
    /* The tmpfs's own limit: the whole device memory, in huge pages. */
    uint64_t limit = (bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES *
                     HUGE_PAGE_BYTES;
    char size[32];
    snprintf(size, sizeof size, "%llu", (unsigned long long)limit);
    int fd = tmpfs_file(size);
    if (fd < 0 && errno == EPERM)
      fd = tmpfs_file_by_helper(size);
    if (fd >= 0)
      return huge_fd = fd;
  }
  return memfd_create("simdevice-memory", MFD_CLOEXEC);
}

void huge_memory_fill_edges(uint64_t offset, uint64_t size) {
  if (huge_fd < 0 || size == 0)
    return;
  uint64_t first = offset / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
  uint64_t last = (offset + size - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
  /* KEEP_SIZE: the last 2 MiB may reach past the device memory's size,
   * which stays as the plugin set it. (A failure leaves the pages to be
   * made on first touch, as before.) */
  fallocate(huge_fd, FALLOC_FL_KEEP_SIZE, (off_t)first, HUGE_PAGE_BYTES);
  if (last != first)
    fallocate(huge_fd, FALLOC_FL_KEEP_SIZE, (off_t)last, HUGE_PAGE_BYTES);
}
