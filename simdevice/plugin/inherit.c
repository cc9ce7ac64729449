/*
 * inherit.c - what a device process inherits from the program, taken when
 * device 0 starts early (plugin.c: before main) and compared at its first
 * use: umask, current and root directory, resource limits, environment,
 * ignored signals and the signal mask, stdin/stdout/stderr (by
 * st_dev/st_ino), and the plugin's own descriptors, which main may have
 * closed and reused. When anything differs, the early process is dropped
 * and a new one started with the program's current state (issue 30, items
 * 1-4). Credentials and capabilities are captured here too, but followed
 * by the device process itself (process_follow_credentials), as for a
 * change after the first use.
 *
 * A descriptor is the plugin's only while it still refers to the file the
 * plugin opened (fd_still_ours); one that is not is never closed.
 *
 * Locking: none; callers hold the device's channel_lock.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdatomic.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "plugin_internal.h"

extern char **environ;

void fd_remember(struct fd_id *id, int fd) {
  struct stat st;
  id->fd = fd;
  id->dev = id->ino = 0;
  if (fd >= 0 && fstat(fd, &st) == 0) {
    id->dev = (uint64_t)st.st_dev;
    id->ino = (uint64_t)st.st_ino;
  }
}

int fd_still_ours(const struct fd_id *id) {
  struct stat st;
  return id->fd >= 0 && fstat(id->fd, &st) == 0 &&
         (uint64_t)st.st_dev == id->dev && (uint64_t)st.st_ino == id->ino;
}

void fd_close_if_ours(int *fd, const struct fd_id *id) {
  if (*fd >= 0 && id->fd == *fd && fd_still_ours(id))
    close(*fd);
  *fd = -1;
}

/* FNV-1a over the environment: its strings and their order. */
static uint64_t environment_hash(void) {
  uint64_t h = 1469598103934665603ull;
  for (char **e = environ; e != NULL && *e != NULL; e++) {
    for (const unsigned char *c = (const unsigned char *)*e; *c; c++)
      h = (h ^ *c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  }
  return h;
}

/* The umask, read without changing it (/proc/self/status), or 0777+1. */
static unsigned read_umask(void) {
  char buf[2048];
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 01000;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  const char *u = strstr(buf, "\nUmask:");
  return u != NULL ? (unsigned)strtoul(u + 7, NULL, 8) : 01000;
}

static void file_id(const char *path, int fd, uint64_t out[2]) {
  struct stat st;
  out[0] = out[1] = 0;
  if ((path != NULL ? stat(path, &st) : fstat(fd, &st)) == 0) {
    out[0] = (uint64_t)st.st_dev + 1;
    out[1] = (uint64_t)st.st_ino;
  }
}

/* A change of credentials that libomptarget's wrappers do not see (an
 * inline system call, a user namespace entered) is found within this. */
#define CREDENTIALS_REREAD_NS 10000000

/* libomptarget's count of the program's id-changing calls
 * (src/credentials_watch.c), found by name once; NULL when it does not
 * see them all (or another libomptarget loaded this plugin): then the
 * credentials are read at every launch. */
static const _Atomic uint64_t *credentials_generation_source(void) {
  static const _Atomic uint64_t *_Atomic source;
  static _Atomic int looked;
  if (!atomic_load_explicit(&looked, memory_order_acquire)) {
    const _Atomic int *watched =
        dlsym(RTLD_DEFAULT, "simtarget_credentials_watched");
    const _Atomic uint64_t *g =
        dlsym(RTLD_DEFAULT, "simtarget_credentials_generation");
    atomic_store(&source, watched != NULL && atomic_load(watched) ? g : NULL);
    atomic_store_explicit(&looked, 1, memory_order_release);
  }
  return atomic_load_explicit(&source, memory_order_relaxed);
}

/* The count (never 0 when watched), or 0. */
static uint64_t credentials_generation(void) {
  const _Atomic uint64_t *g = credentials_generation_source();
  return g != NULL ? atomic_load_explicit(g, memory_order_acquire) : 0;
}

/* The coarse clock (the last tick, a few ms old): enough for a 10 ms period,
 * and a plain read of the vDSO page. */
static int64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void credentials_capture(struct credentials *c) {
  memset(c, 0, sizeof *c);
  /* before the ids: a change after this read counts after it */
  c->generation = credentials_generation();
  c->read_ns = monotonic_ns();
  getresuid(&c->uid[0], &c->uid[1], &c->uid[2]);
  getresgid(&c->gid[0], &c->gid[1], &c->gid[2]);
  c->ngroups = getgroups(INHERIT_MAX_GROUPS, c->groups);
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  syscall(SYS_capget, &h, c->caps);
}

int credentials_equal(const struct credentials *a,
                      const struct credentials *b) {
  /* the ids, groups and capabilities: up to the end of caps, no padding */
  return memcmp(a, b, offsetof(struct credentials, caps) + sizeof a->caps) == 0;
}

int credentials_changed(struct credentials *then, struct credentials *now) {
  uint64_t generation = credentials_generation();
  int64_t read_ns = monotonic_ns();
  if (generation != 0 && generation == then->generation &&
      read_ns - then->read_ns < CREDENTIALS_REREAD_NS)
    return 0;
  uid_t uid[3];
  gid_t gid[3];
  getresuid(&uid[0], &uid[1], &uid[2]);
  getresgid(&gid[0], &gid[1], &gid[2]);
  /* capget's permitted words: 1 and 4 */
  int capable = then->caps[1] != 0 || then->caps[4] != 0;
  if (capable || memcmp(uid, then->uid, sizeof uid) != 0 ||
      memcmp(gid, then->gid, sizeof gid) != 0) {
    credentials_capture(now);
    if (!credentials_equal(then, now))
      return 1;
  }
  then->generation = generation;
  then->read_ns = read_ns;
  return 0;
}

void inherit_capture(struct inherited_state *s) {
  memset(s, 0, sizeof *s);
  credentials_capture(&s->cred);
  s->umask = read_umask();
  file_id(".", -1, s->cwd);
  file_id("/", -1, s->root);
  for (int r = 0; r < INHERIT_LIMITS; r++)
    getrlimit(r, &s->limits[r]);
  s->env_hash = environment_hash();
  for (int sig = 1; sig < 65; sig++) {
    struct sigaction sa;
    if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
      s->ignored |= 1ull << (sig - 1);
  }
  pthread_sigmask(SIG_SETMASK, NULL, &s->mask);
  for (int fd = 0; fd < 3; fd++)
    file_id(NULL, fd, s->stdio[fd]);
}

const char *inherit_differs(const struct inherited_state *then) {
  struct inherited_state now;
  inherit_capture(&now);
  if (then->umask != now.umask)
    return "umask";
  if (memcmp(then->cwd, now.cwd, sizeof now.cwd) != 0 ||
      memcmp(then->root, now.root, sizeof now.root) != 0)
    return "current or root directory";
  if (memcmp(then->limits, now.limits, sizeof now.limits) != 0)
    return "resource limits";
  if (then->env_hash != now.env_hash)
    return "environment";
  if (then->ignored != now.ignored ||
      memcmp(&then->mask, &now.mask, sizeof now.mask) != 0)
    return "signal dispositions or mask";
  if (memcmp(then->stdio, now.stdio, sizeof now.stdio) != 0)
    return "stdin, stdout or stderr";
  return NULL;
}
