/*
 * supervise.c - `simdevice-server --supervise`: the parent of a device
 * process. The plugin's starter (plugin/process.c) makes it an orphan (so
 * that the device is no child of the host program, which may reap "all its
 * children" or count SIGCHLD); before its exec it vforked the device process
 * (the server, or the SIMDEVICE_WRAPPER command in front of it) and
 * published its pid in the control area. Here it waits for that child and
 * records the wait status there, so the host can say how the device ended
 * (protocol.h), after it showed what the device's Valgrind wrote last
 * (SIMDEVICE_VALGRIND: valgrind_log.c).
 *
 * Single-threaded; the control area's supervisor fields are written only
 * here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server.h"
#include "../supervisor_exit.h"

extern char **environ;

int supervise_main(void) {
  struct simdev_control *ctl =
      mmap(NULL, sizeof *ctl, PROT_READ | PROT_WRITE, MAP_SHARED,
           SIMDEV_FD_CONTROL, 0);
  if (ctl == MAP_FAILED) {
    perror("simdevice-server --supervise: cannot map the control area");
    return 2;
  }
  close(SIMDEV_FD_CONTROL);
  /* The host's sign that this process is gone (protocol.h): held here
   * until the end, never by the device process. */
  fcntl(SIMDEV_FD_SUPERVISOR, F_SETFD, FD_CLOEXEC);
  if (ctl->valgrind_log)
    fcntl(SIMDEV_FD_VALGRIND_LOG, F_SETFD, FD_CLOEXEC);
  pid_t pid = (pid_t)atomic_load(&ctl->server_pid);
  int status = 0;
  if (pid <= 0) {
    fprintf(stderr, "simdevice-server --supervise: no device process in the "
                    "control area (only the plugin starts a supervisor)\n");
    status = 126 << 8; /* as if it exited with 126 */
  } else {
    /* The device stays a zombie (its pid taken) until its status is
     * recorded: a host that opened a pidfd on that pid while server_exited
     * was 0 holds the device's, never a later process's (plugin/process.c). */
    status = supervisor_wait_status(pid);
#ifdef SIMTARGET_TEST_HOOKS
    /* Test hook (environment.c): widens the moment where the device
     * process has ended but is not yet recorded. */
    unsigned late = environment_get()->test_supervisor_late_ms;
    if (late > 0)
      usleep((useconds_t)late * 1000u);
#endif
    if (ctl->valgrind_log)
      valgrind_log_show_rest(ctl);
  }
  supervisor_record_exit(ctl, status);
  if (pid > 0)
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
  return 0;
}
