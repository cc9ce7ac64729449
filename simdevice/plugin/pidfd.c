/*
 * pidfd.c - the device's processes by pidfd, never by a bare pid: a pid
 * whose process has ended (and was reaped, by its supervisor or by anyone)
 * can belong to an unrelated process a moment later, which must then never
 * be signalled, waited for or taken for the device (issue 30, item 7).
 *
 * A kernel without pidfds (before Linux 5.3; qemu user mode may lack them)
 * gets the pid itself, as before: pidfd_open fails with ENOSYS there. So
 * does a program under Valgrind, which knows no pidfd system call.
 *
 * Locking: none; the callers hold the device's channel_lock.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin_internal.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* Set once pidfd_open said ENOSYS: the pid is all there is. */
static _Atomic int no_pidfds;

int pidfd_of(pid_t pid) {
  /* Valgrind (3.19) knows no pidfd system call: it would warn on stderr
   * and fail it. */
  if (RUNNING_ON_VALGRIND)
    no_pidfds = 1;
  if (pid <= 0 || no_pidfds)
    return -1;
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0 && errno == ENOSYS)
    no_pidfds = 1;
  return fd;
}

int pidfd_missing(void) { return no_pidfds; }

int pidfd_ended(int pidfd, pid_t pid) {
  if (pidfd >= 0) {
    struct pollfd p = {.fd = pidfd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
  }
  if (!no_pidfds || pid <= 0) /* its pidfd could not be opened: gone */
    return 1;
  return kill(pid, 0) != 0 && errno == ESRCH;
}

void pidfd_kill(int pidfd, pid_t pid) {
  if (pidfd >= 0)
    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  else if (no_pidfds && pid > 0)
    kill(pid, SIGKILL);
}

/* Converts waitid's answer to a wait status. */
static int wait_status_of(const siginfo_t *info) {
  switch (info->si_code) {
  case CLD_EXITED:
    return (info->si_status & 0xff) << 8;
  case CLD_KILLED:
    return info->si_status & 0x7f;
  case CLD_DUMPED:
    return (info->si_status & 0x7f) | 0x80;
  default:
    return -1;
  }
}

/* Reaps child *pid (its pidfd *pidfd, -1 if none) once it has ended,
 * waiting up to wait_ms milliseconds for that, or as long as it takes when
 * wait_ms < 0 (a child that is exiting already). 1 when it is reaped or
 * was already (*pid 0, *pidfd closed and -1; *status its wait status, -1
 * when unknown: the program reaped it), 0 while it still runs. */
int pidfd_reap_child(int *pidfd, pid_t *pid, int wait_ms, int *status) {
  if (*pid <= 0)
    return 1;
  *status = -1;
  /* __WALL: the supervisor's exit signal is 0 (process.c). */
  const int options = WEXITED | __WALL | (wait_ms < 0 ? 0 : WNOHANG);
  for (int waited = 0;; waited++) {
    siginfo_t info = {0};
    int rc = *pidfd >= 0 ? waitid(P_PIDFD, (id_t)*pidfd, &info, options)
                         : waitid(P_PID, (id_t)*pid, &info, options);
    if (rc == 0 && info.si_pid == 0 && waited < wait_ms) {
      struct timespec t = {.tv_sec = 0, .tv_nsec = 1000000L};
      nanosleep(&t, NULL);
      continue;
    }
    if (rc == 0 && info.si_pid == 0)
      return 0; /* still running */
    if (rc == 0)
      *status = wait_status_of(&info);
    else if (errno == EINTR)
      continue;
    /* ECHILD: the program reaped it (a wait with __WALL). */
    break;
  }
  if (*pidfd >= 0)
    close(*pidfd);
  *pidfd = -1;
  *pid = 0;
  return 1;
}
