/*
 * valgrind_log.c - the file a device process's Valgrind writes its reports
 * to (SIMDEVICE_VALGRIND; protocol.h, SIMDEV_FD_VALGRIND_LOG), host side.
 *
 * Valgrind gives the code it runs no address of the errors it reports, so
 * its reports go to a file instead of stderr: the device process reads
 * them there after each command, copies them to its stderr (the program's)
 * and, after a kernel Helgrind or DRD reported races in, names the mapped
 * variable each racing address lies in (simdevice/server/valgrind_log.c).
 * A file, never a pipe: Valgrind's writes never block, whoever reads.
 *
 * The host creates the file (a memfd, one per device process) and, once
 * the process has ended, copies what the server had not shown yet (what
 * Valgrind wrote after the server's last command: its summary at exit, a
 * report of a crash) to stderr.
 *
 * Locking: none; callers hold the device's channel_lock.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plugin_internal.h"
#include "write_all.h"

int valgrind_log_create(void) {
  return memfd_create("simdevice-valgrind-log", MFD_CLOEXEC);
}

void valgrind_log_show_rest(int fd, uint64_t from) {
  char buf[65536];
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf, (off_t)from);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 || write_all(STDERR_FILENO, buf, (size_t)n) != 0)
      return;
    from += (uint64_t)n;
  }
}
