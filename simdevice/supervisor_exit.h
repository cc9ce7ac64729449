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

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "protocol.h"

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
