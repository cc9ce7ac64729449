/*
 * write_all.h - writes a whole buffer to a descriptor, through short writes
 * and EINTR: for copies of Valgrind's log to stderr, by the plugin and the
 * device process alike (simdevice/plugin/valgrind_log.c,
 * simdevice/server/valgrind_log.c). Inline: each links its own objects.
 */
#ifndef SIMTARGET_WRITE_ALL_H
#define SIMTARGET_WRITE_ALL_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* 0 when all n bytes went out, -1 when fd refused them (gone, full disk). */
static inline int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

#endif
