/*
 * child_output.h - run this program again as a child whose stdout is a pipe
 * or a file, as CI systems do, and collect what it wrote. The child sees
 * CHILD_OUTPUT_RUN=<mode> (the parent's choice of what it does) and runs without stdbuf (programs.sh runs programs
 * under `stdbuf -o0`, which would hide buffering), so its stdout is fully
 * buffered. Single-threaded use on the host only.
 */
#ifndef SIMTARGET_PROGRAM_CHILD_OUTPUT_H
#define SIMTARGET_PROGRAM_CHILD_OUTPUT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reexec.h"

/* The mode the parent gave, in the child; NULL in the parent. */
static const char *child_output_mode(void) {
  return getenv("CHILD_OUTPUT_RUN");
}

/* Starts this program as a child with stdout on out_fd and stderr on
 * err_fd; returns its pid (-1 when fork fails). */
static pid_t child_output_start(const char *self, const char *mode,
                                int out_fd, int err_fd) {
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    setenv("CHILD_OUTPUT_RUN", mode, 1);
    unsetenv("LD_PRELOAD");
    unsetenv("_STDBUF_O");
    unsetenv("_STDBUF_E");
    char *const argv[] = {(char *)self, NULL};
    reexec_self(self, argv);
    _exit(127);
  }
  return pid;
}

/* The child's exit status, 128 + signal when killed, -1 when unknown. */
static int child_output_status(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Reads fd to its end into buf (NUL-terminated); returns the length. */
static size_t child_output_read_all(int fd, char *buf, size_t size) {
  size_t got = 0;
  ssize_t n;
  while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
    got += (size_t)n;
  buf[got] = '\0';
  return got;
}

/* Runs the child with stdout into a pipe; its stdout lands in out, its
 * stderr in err. Returns its status. */
static int child_output_through_pipe(const char *self, const char *mode,
                                     char *out,
                                     size_t out_size, char *err,
                                     size_t err_size) {
  int fds[2], errs[2];
  if (pipe(fds) != 0 || pipe(errs) != 0)
    return -1;
  pid_t pid = child_output_start(self, mode, fds[1], errs[1]);
  close(fds[1]);
  close(errs[1]);
  child_output_read_all(fds[0], out, out_size); /* small stderr: no deadlock */
  child_output_read_all(errs[0], err, err_size);
  close(fds[0]);
  close(errs[0]);
  return child_output_status(pid);
}

/* The same with stdout into a file (stderr into the pipe as above). */
static int child_output_through_file(const char *self, const char *mode,
                                     char *out,
                                     size_t out_size, char *err,
                                     size_t err_size) {
  char name[] = "/tmp/child_output_XXXXXX";
  int fd = mkstemp(name), errs[2];
  if (fd < 0 || pipe(errs) != 0)
    return -1;
  unlink(name);
  pid_t pid = child_output_start(self, mode, fd, errs[1]);
  close(errs[1]);
  child_output_read_all(errs[0], err, err_size);
  close(errs[0]);
  int status = child_output_status(pid);
  lseek(fd, 0, SEEK_SET);
  child_output_read_all(fd, out, out_size);
  close(fd);
  return status;
}

/* 1 when every line of `ordered` appears in `text` in that order;
 * otherwise prints which one is missing or out of order (`how` says which
 * run) and returns 0. */
static int child_output_in_order(const char *how, const char *text,
                                 const char *const *ordered, size_t count) {
  const char *at = text;
  for (size_t i = 0; i < count; i++) {
    const char *found = strstr(at, ordered[i]);
    if (found == NULL) {
      printf("%s: line `%.*s` missing or out of order\n", how,
             (int)strlen(ordered[i]) - 1, ordered[i]);
      return 0;
    }
    at = found + strlen(ordered[i]);
  }
  return 1;
}

#endif
