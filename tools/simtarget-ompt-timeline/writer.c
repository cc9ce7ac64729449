/*
 * writer.c - the timeline file (writer.h).
 *
 * Locking: `lock` guards `fd`, `end`, `written`, the named tracks and the
 * lanes. A forked child writes nothing (the file is its parent's).
 */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static off_t end;       /* where the closing "\n]\n" starts */
static pid_t owner;
static uint64_t written;
static struct {
  int pid;
  long tid;
} named[1024];
static size_t num_named;
static int host_threads;
static uint64_t lanes[TL_MAX_DEVICES];
static __thread long my_tid;

uint64_t tl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long tl_tid(void) {
  if (!my_tid)
    my_tid = syscall(SYS_gettid);
  return my_tid;
}

bool tl_open(const char *path) {
  int f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f < 0 || write(f, "[\n]\n", 4) != 4) {
    fprintf(stderr, "simtarget-ompt-timeline: cannot write the timeline "
                    "file %s (SIMTARGET_OMPT_TIMELINE): %s; no timeline is "
                    "written\n", path, strerror(errno ? errno : ENOSPC));
    if (f >= 0)
      close(f);
    return false;
  }
  pthread_mutex_lock(&lock);
  fd = f;
  end = 1;
  owner = getpid();
  pthread_mutex_unlock(&lock);
  return true;
}

/* Writes one event over the closing bracket; a failed write ends the
 * timeline there (said once), the file cut back to its whole events. */
static void put_locked(const char *event) {
  if (fd < 0 || getpid() != owner)
    return;
  char buf[1900];
  int n = snprintf(buf, sizeof buf, "%s%s\n]\n", written ? ",\n" : "\n",
                   event);
  if (n < 0 || (size_t)n >= sizeof buf)
    return; /* cannot happen: events are formatted into 1800 bytes */
  if (pwrite(fd, buf, (size_t)n, end) != n) {
    fprintf(stderr, "simtarget-ompt-timeline: writing the timeline failed "
                    "(%s); it keeps its first %" PRIu64 " events\n",
            strerror(errno ? errno : ENOSPC), written);
    if (ftruncate(fd, end + 3) != 0 || pwrite(fd, "\n]\n", 3, end) != 3)
      fprintf(stderr, "simtarget-ompt-timeline: the file is cut short\n");
    close(fd);
    fd = -1;
    return;
  }
  written++;
  end += n - 3;
}

static void meta_locked(int pid, long tid, const char *what, const char *key,
                        const char *value, int sort) {
  char buf[300];
  snprintf(buf, sizeof buf,
           "{\"name\":\"%s_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%d,"
           "\"tid\":%ld,\"args\":{\"name\":\"%s\"}}",
           what, pid, tid, value);
  put_locked(buf);
  snprintf(buf, sizeof buf,
           "{\"name\":\"%s_sort_index\",\"ph\":\"M\",\"ts\":0,\"pid\":%d,"
           "\"tid\":%ld,\"args\":{\"%s\":%d}}",
           what, pid, tid, key, sort);
  put_locked(buf);
}

/* Names track (pid, tid) (tid < 0: the process) once. */
static void name_locked(int pid, long tid, const char *name, int sort) {
  for (size_t i = 0; i < num_named; i++)
    if (named[i].pid == pid && named[i].tid == tid)
      return;
  if (num_named < sizeof named / sizeof named[0])
    named[num_named++] = (typeof(named[0])){pid, tid};
  if (tid < 0)
    meta_locked(pid, 0, "process", "sort_index", name, sort);
  else
    meta_locked(pid, tid, "thread", "sort_index", name, sort);
}

static bool seen_locked(int pid, long tid) {
  for (size_t i = 0; i < num_named; i++)
    if (named[i].pid == pid && named[i].tid == tid)
      return true;
  return false;
}

static void name_tracks_locked(int pid, long tid) {
  char name[64];
  if (pid == TL_HOST_PID) {
    name_locked(pid, -1, "host", 0);
    if (seen_locked(pid, tid))
      return;
    bool main_thread = tid == getpid();
    if (main_thread)
      snprintf(name, sizeof name, "main thread");
    else
      snprintf(name, sizeof name, "host thread %d (tid %ld)", ++host_threads,
               tid);
    name_locked(pid, tid, name, main_thread ? 0 : host_threads);
    return;
  }
  snprintf(name, sizeof name, "device %d", pid - 2);
  name_locked(pid, -1, name, pid);
  static const char *const tracks[] = {
      [TL_MEMORY] = "memory", [TL_COPIES] = "copies",
      [TL_KERNELS] = "kernels"};
  if (tid >= TL_MEMORY && tid <= TL_KERNELS)
    name_locked(pid, tid, tracks[tid], (int)tid);
  else {
    snprintf(name, sizeof name, "nowait lane %ld", tid - TL_LANE_TID(0));
    name_locked(pid, tid, name, (int)tid);
  }
}

void tl_json_string(char *buf, size_t len, const char *s) {
  size_t n = 0;
  for (; s && *s && n + 7 < len; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      buf[n++] = '\\';
      buf[n++] = (char)ch;
    } else if (ch < 0x20)
      n += (size_t)snprintf(buf + n, len - n, "\\u%04x", ch);
    else
      buf[n++] = (char)ch;
  }
  buf[n] = '\0';
}

static void event(int pid, long tid, const char *head, const char *args) {
  char buf[1800];
  int n = snprintf(buf, sizeof buf, "%s,\"pid\":%d,\"tid\":%ld,"
                   "\"args\":{%s}}", head, pid, tid, args ? args : "");
  if (n < 0 || (size_t)n >= sizeof buf)
    return; /* a name or args too long: the event would be cut */
  pthread_mutex_lock(&lock);
  name_tracks_locked(pid, tid);
  put_locked(buf);
  pthread_mutex_unlock(&lock);
}

void tl_complete(int pid, long tid, const char *name, const char *cat,
                 uint64_t t0, uint64_t t1, const char *args) {
  char esc[600], head[800];
  tl_json_string(esc, sizeof esc, name);
  uint64_t dur = t1 > t0 ? t1 - t0 : 0;
  snprintf(head, sizeof head,
           "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%" PRIu64
           ".%03u,\"dur\":%" PRIu64 ".%03u",
           esc, cat, t0 / 1000, (unsigned)(t0 % 1000), dur / 1000,
           (unsigned)(dur % 1000));
  event(pid, tid, head, args);
}

void tl_instant(int pid, long tid, const char *name, const char *cat,
                uint64_t t, const char *args) {
  char esc[600], head[800];
  tl_json_string(esc, sizeof esc, name);
  snprintf(head, sizeof head,
           "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\","
           "\"ts\":%" PRIu64 ".%03u",
           esc, cat, t / 1000, (unsigned)(t % 1000));
  event(pid, tid, head, args);
}

int tl_lane_take(int device) {
  if (device < 0 || device >= TL_MAX_DEVICES)
    return -1;
  pthread_mutex_lock(&lock);
  int lane = 0;
  while (lane < TL_MAX_LANES - 1 && (lanes[device] >> lane & 1))
    lane++;
  lanes[device] |= (uint64_t)1 << lane;
  pthread_mutex_unlock(&lock);
  return lane;
}

void tl_lane_give(int device, int lane) {
  if (device < 0 || device >= TL_MAX_DEVICES || lane < 0 ||
      lane >= TL_MAX_LANES - 1)
    return;
  pthread_mutex_lock(&lock);
  lanes[device] &= ~((uint64_t)1 << lane);
  pthread_mutex_unlock(&lock);
}
