/*
 * valgrind_log.c - Valgrind's reports on this process, read back
 * (SIMDEVICE_VALGRIND; simdev_control.valgrind_log).
 *
 * Valgrind tells the code it runs how many errors it found, never where:
 * a race report's address reaches no client request. So the plugin starts
 * Valgrind with --log-fd=SIMDEV_FD_VALGRIND_LOG, a file (a memfd: the
 * writes never block) that this process reads: after every command, what
 * Valgrind wrote since goes on to stderr, the program's, unchanged, and
 * the watcher (races.c, which notes the addresses of races) sees each of
 * its lines on the way, whichever thread's command it follows (a kernel of
 * a queue slot may race while the main slot serves a copy). pread leaves the file offset, which Valgrind writes
 * at, alone. Only whole lines are passed on while the process runs (a
 * report being written by another thread waits for the next command).
 * What Valgrind writes after the last command (at exit, at a crash) the
 * supervisor shows once the process has ended (valgrind_log_show_rest,
 * before it records the end, so before the host's verdict), also when the
 * host is gone or left with _exit; simdev_control.valgrind_log_shown says
 * how far either got, and the plugin shows whatever is left after that
 * (plugin/valgrind_log.c: a supervisor that was killed).
 *
 * Off (no log: not under SIMDEVICE_VALGRIND, or the plugin made no file),
 * valgrind_log_show returns at once.
 *
 * Locking: `lock` serialises readers (the main slot's thread and the queue
 * slots' threads each show after their commands).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "server.h"
#include "write_all.h"

static int on;
static _Atomic uint64_t *shown; /* the control area's valgrind_log_shown */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static valgrind_log_line_fn *watcher; /* set once, before serving */

void valgrind_log_init(struct simdev_control *ctl) {
  on = ctl->valgrind_tool != 0 && ctl->valgrind_log != 0;
  shown = &ctl->valgrind_log_shown;
}

void valgrind_log_watch(valgrind_log_line_fn *each_line) {
  watcher = each_line;
}

/* Hands each line of buf[0, n) (its newline left out) to each_line. */
static void lines_of(char *buf, size_t n, valgrind_log_line_fn *each_line) {
  for (size_t at = 0; at < n;) {
    char *nl = memchr(buf + at, '\n', n - at);
    size_t end = nl != NULL ? (size_t)(nl - buf) : n;
    buf[end] = '\0'; /* buf has room for one byte more */
    each_line(buf + at);
    at = end + 1;
  }
}

/* One chunk from `from`: the whole lines in it (all of it when it holds
 * no newline and fills the buffer, or when the process has ended), or 0
 * when there is none. */
static size_t whole_lines(const char *buf, size_t n, size_t size, int ended) {
  if (ended)
    return n;
  const char *nl = n > 0 ? memrchr(buf, '\n', n) : NULL;
  if (nl != NULL)
    return (size_t)(nl - buf) + 1;
  return n == size ? n : 0;
}

/* Shows what is new; ended: the process has ended, the rest is whole. */
static void show(int ended) {
  if (!on)
    return;
  static char buf[65536 + 1];
  pthread_mutex_lock(&lock);
  for (;;) {
    uint64_t from = atomic_load(shown);
    ssize_t got = pread(SIMDEV_FD_VALGRIND_LOG, buf, sizeof buf - 1,
                        (off_t)from);
    if (got < 0 && errno == EINTR)
      continue;
    size_t n =
        got > 0 ? whole_lines(buf, (size_t)got, sizeof buf - 1, ended) : 0;
    if (n == 0 || write_all(STDERR_FILENO, buf, n) != 0)
      break;
    atomic_store(shown, from + n);
    if (watcher != NULL)
      lines_of(buf, n, watcher);
  }
  pthread_mutex_unlock(&lock);
}

void valgrind_log_show(void) { show(0); }

void valgrind_log_show_rest(struct simdev_control *ctl) {
  valgrind_log_init(ctl);
  show(1);
}
