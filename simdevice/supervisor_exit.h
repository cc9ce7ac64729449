/*
 * supervisor_exit.h - the supervisor's last act, shared by the server's
 * supervisor (simdevice/server/supervise.c) and the plugin's inline one
 * (simdevice/plugin/process.c, used when the supervisor's exec fails):
 * record the device process's wait status in the control area, then wake
 * a host sleeping on the start handshake or on the command slot. System
 * calls only: the plugin's caller is a clone child of the host, where libc
 * state (locks, the heap) may belong to other threads.
 */
#ifndef SIMDEVICE_SUPERVISOR_EXIT_H
#define SIMDEVICE_SUPERVISOR_EXIT_H

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "protocol.h"

/* The wait status of the child `pid` once it has ended, left unreaped
 * (WNOWAIT): its pid stays taken until the caller reaps it. System calls
 * only. -1 when it cannot be waited for. */
static inline int supervisor_wait_status(pid_t pid) {
  siginfo_t info;
  for (;;) {
    info.si_pid = 0;
    if (syscall(SYS_waitid, P_PID, (long)pid, &info, WEXITED | WNOWAIT,
                NULL) == 0)
      break;
    if (errno != EINTR)
      return -1;
  }
  switch (info.si_code) {
  case CLD_EXITED:
    return (info.si_status & 0xff) << 8;
  case CLD_KILLED:
    return info.si_status & 0x7f;
  case CLD_DUMPED:
    return (info.si_status & 0x7f) | 0x80;
  default:
    return -1;
  }
}

static inline void supervisor_record_exit(struct simdev_control *ctl,
                                          int status) {
  ctl->exit_status = status;
  atomic_store(&ctl->server_exited, 1);
  syscall(SYS_futex, (uint32_t *)&ctl->server_ready, FUTEX_WAKE, INT_MAX,
          NULL, NULL, 0);
  syscall(SYS_futex, (uint32_t *)&ctl->slot.state, FUTEX_WAKE, INT_MAX, NULL,
          NULL, 0);
}

#endif /* SIMDEVICE_SUPERVISOR_EXIT_H */
