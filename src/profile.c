/*
 * profile.c - LIBOMPTARGET_PROFILE: the Chrome Trace Event Format timeline
 * (profile.h).
 *
 * The file is a valid JSON array after every write: it starts as "[\n]\n",
 * and each event is written with one pwrite over the closing "\n]\n" (the
 * separator, the event, and the closing bracket again). So it stays valid
 * whatever ends the program, at any moment: exit() from any thread (even
 * while another thread runs the exit handlers), the runtime's _exit after a
 * mandatory-offload failure, a signal. Events of different threads never
 * interleave (one write each, under the lock).
 *
 * Locking: `profile_lock` guards `profile_fd`, `end_offset`, `owner_pid`,
 * `events_written`, the table of named tracks (`named`, `num_named`) and
 * the lanes in use (`lanes`). `profile_on` (atomic) is written under it and
 * read without it by the hooks (a stale true only reaches the lock, which
 * checks the file again). `stack` (the calling thread's constructs) and
 * `thread_named` are thread-local.
 */
#include "profile.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Atomic bool profile_on;

static pthread_mutex_t profile_lock = PTHREAD_MUTEX_INITIALIZER;
static int profile_fd = -1;
static off_t end_offset; /* where the closing "\n]\n" starts */
static pid_t owner_pid;  /* a forked child writes nothing */
static uint64_t events_written;

#define HOST_PID 1
#define DEVICE_PID(d) (2 + (d))
enum device_track { TRACK_MEMORY = 1, TRACK_COPIES, TRACK_KERNELS,
                    TRACK_RUNTIME };
#define LANE_TID(lane) (100 + (lane))
#define MAX_DEVICES 64
#define MAX_LANES 64

/* Tracks whose names are written already: (pid, tid) pairs. */
static struct {
  int pid;
  long tid;
} named[1024];
static size_t num_named;
static uint64_t lanes[MAX_DEVICES]; /* bit k: lane k of device d in use */
static int host_threads_named;

#define MAX_NESTED 8
static __thread struct {
  const char *construct;
  const ident_t *loc;
  int64_t device;
  bool nowait;
  uint64_t t0;
} stack[MAX_NESTED];
static __thread int depth;
static __thread long thread_id;

uint64_t profile_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long host_tid(void) {
  if (!thread_id)
    thread_id = syscall(SYS_gettid);
  return thread_id;
}

/* ------------------------------------------------------------- output */

/* Writes `len` bytes over the closing bracket. A failed write (disk full,
 * a file size limit) is said once, naming the file; the file is cut back to
 * its last whole event and its closing bracket (rewritten in place, where
 * the disk held it already), so it stays valid JSON; and the profile ends
 * there: nothing more is written. Caller holds profile_lock. */
static bool write_whole_locked(const char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pwrite(profile_fd, buf + done, len - done,
                       end_offset + (off_t)done);
    if (n > 0) {
      done += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    int err = n < 0 ? errno : ENOSPC;
    if (ftruncate(profile_fd, end_offset + 3) != 0 ||
        pwrite(profile_fd, "\n]\n", 3, end_offset) != 3)
      err = errno; /* cannot happen: these bytes were on the disk */
    char where[96];
    snprintf(where, sizeof where,
             "no more of the profile is written (it keeps its first %" PRIu64
             " events)", events_written);
    settings_warn_write_failed("LIBOMPTARGET_PROFILE", settings_get()->profile,
                               err, where);
    close(profile_fd);
    profile_fd = -1;
    profile_on = false;
    return false;
  }
  return true;
}

/* Appends one event (a JSON object without the separator) under the
 * lock. */
static void write_event_locked(const char *text) {
  if (profile_fd < 0 || getpid() != owner_pid)
    return;
  char buf[1200];
  int n = snprintf(buf, sizeof buf, "%s%s\n]\n", events_written ? ",\n" : "\n",
                   text);
  if (n < 0 || (size_t)n >= sizeof buf)
    return; /* cannot happen: events are formatted into 1100 bytes */
  if (!write_whole_locked(buf, (size_t)n))
    return;
  events_written++;
  end_offset += n - 3;
}

/* A metadata event naming track (pid, tid) (tid < 0: the process), once. */
static void name_track_locked(int pid, long tid, const char *name,
                              int sort_index) {
  for (size_t i = 0; i < num_named; i++)
    if (named[i].pid == pid && named[i].tid == tid)
      return;
  if (num_named < sizeof named / sizeof named[0])
    named[num_named++] = (typeof(named[0])){pid, tid};
  char buf[256];
  if (tid < 0) {
    snprintf(buf, sizeof buf,
             "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%d,"
             "\"tid\":0,\"args\":{\"name\":\"%s\"}}",
             pid, name);
    write_event_locked(buf);
    snprintf(buf, sizeof buf,
             "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"ts\":0,"
             "\"pid\":%d,\"tid\":0,\"args\":{\"sort_index\":%d}}",
             pid, sort_index);
  } else {
    snprintf(buf, sizeof buf,
             "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%d,"
             "\"tid\":%ld,\"args\":{\"name\":\"%s\"}}",
             pid, tid, name);
    write_event_locked(buf);
    snprintf(buf, sizeof buf,
             "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":0,"
             "\"pid\":%d,\"tid\":%ld,\"args\":{\"sort_index\":%d}}",
             pid, tid, sort_index);
  }
  write_event_locked(buf);
}

/* Names the tracks an event on (pid, tid) needs. */
static void name_tracks_locked(int pid, long tid) {
  char name[64];
  if (pid == HOST_PID) {
    name_track_locked(HOST_PID, -1, "host", 0);
    bool main_thread = tid == getpid();
    bool seen = false;
    for (size_t i = 0; i < num_named && !seen; i++)
      seen = named[i].pid == HOST_PID && named[i].tid == tid;
    if (seen)
      return;
    if (main_thread)
      snprintf(name, sizeof name, "main thread");
    else
      snprintf(name, sizeof name, "host thread %d (tid %ld)",
               ++host_threads_named, tid);
    name_track_locked(HOST_PID, tid, name,
                      main_thread ? 0 : host_threads_named);
    return;
  }
  snprintf(name, sizeof name, "device %d", pid - 2);
  name_track_locked(pid, -1, name, pid);
  static const char *const track_names[] = {
      [TRACK_MEMORY] = "memory", [TRACK_COPIES] = "copies",
      [TRACK_KERNELS] = "kernels", [TRACK_RUNTIME] = "runtime"};
  if (tid >= TRACK_MEMORY && tid <= TRACK_RUNTIME)
    name_track_locked(pid, tid, track_names[tid],
                      tid == TRACK_RUNTIME ? 0 : (int)tid);
  else {
    snprintf(name, sizeof name, "nowait lane %ld", tid - LANE_TID(0));
    name_track_locked(pid, tid, name, (int)tid);
  }
}

static void put_json_string(char *buf, size_t len, const char *s) {
  size_t n = 0;
  for (; s && *s && n + 7 < len; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      buf[n++] = '\\';
      buf[n++] = (char)ch;
    } else if (ch < 0x20) {
      n += (size_t)snprintf(buf + n, len - n, "\\u%04x", ch);
    } else {
      buf[n++] = (char)ch;
    }
  }
  buf[n] = '\0';
}

/* One complete event from t0 to now: `name` and `cat`, and `args` (the
 * inside of a JSON object, maybe empty). */
static void complete_event(int pid, long tid, const char *name,
                           const char *cat, uint64_t t0, const char *args) {
  uint64_t t1 = profile_now();
  char esc[256], buf[1100];
  put_json_string(esc, sizeof esc, name);
  int n = snprintf(buf, sizeof buf,
           "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%" PRIu64
           ".%03u,\"dur\":%" PRIu64 ".%03u,\"pid\":%d,\"tid\":%ld,"
           "\"args\":{%s}}",
           esc, cat, t0 / 1000, (unsigned)(t0 % 1000), (t1 - t0) / 1000,
           (unsigned)((t1 - t0) % 1000), pid, tid, args ? args : "");
  if (n < 0 || (size_t)n >= sizeof buf)
    return; /* a name or args too long: the event would be cut, not JSON */
  pthread_mutex_lock(&profile_lock);
  name_tracks_locked(pid, tid);
  write_event_locked(buf);
  pthread_mutex_unlock(&profile_lock);
}

/* "file:line" of a construct, and its function, from clang's ident. */
static void location(const ident_t *loc, char *where, size_t len,
                     char *func, size_t func_len) {
  where[0] = func[0] = '\0';
  struct source_location l;
  if (!report_location_parts(loc, &l))
    return;
  const char *base = strrchr(l.file, '/');
  char raw[sizeof l.file + 16];
  snprintf(raw, sizeof raw, "%s:%d", base ? base + 1 : l.file, l.line);
  put_json_string(where, len, raw);
  put_json_string(func, func_len, l.func);
}

/* ------------------------------------------------------- open and close */

static void profile_close(void) {
  pthread_mutex_lock(&profile_lock);
  profile_on = false;
  if (profile_fd >= 0 && getpid() == owner_pid)
    close(profile_fd);
  profile_fd = -1;
  pthread_mutex_unlock(&profile_lock);
}

static void profile_forked_child(void) {
  /* the parent's file: its process writes it */
  profile_on = false;
  profile_fd = -1;
}

__attribute__((constructor)) static void profile_open(void) {
  const char *path = settings_get()->profile;
  if (!path)
    return;
  int fd = settings_open_output("LIBOMPTARGET_PROFILE", path, "profile");
  if (fd < 0)
    return;
  errno = 0;
  if (write(fd, "[\n]\n", 4) != 4) {
    settings_warn_write_failed("LIBOMPTARGET_PROFILE", path,
                               errno ? errno : ENOSPC,
                               "no profile is written");
    close(fd);
    return;
  }
  pthread_mutex_lock(&profile_lock);
  profile_fd = fd;
  end_offset = 1;
  owner_pid = getpid();
  profile_on = true;
  pthread_mutex_unlock(&profile_lock);
  pthread_atfork(NULL, NULL, profile_forked_child);
}

/* After the library's other destructors (interface.c completes the queued
 * work there), before faults.c's last one (101). */
__attribute__((destructor(102))) static void profile_at_exit(void) {
  profile_close();
}

/* --------------------------------------------------------------- events */

static const char *construct_title(const char *construct) {
  if (!strcmp(construct, "enter"))
    return "data enter";
  if (!strcmp(construct, "exit"))
    return "data exit";
  if (!strcmp(construct, "update"))
    return "target update";
  return construct;
}

void profile_construct_begin(const char *construct, const ident_t *loc,
                             int64_t device_id, bool nowait) {
  if (depth < MAX_NESTED)
    stack[depth] = (typeof(stack[0])){construct, loc, device_id, nowait,
                                      profile_now()};
  depth++;
}

void profile_construct_end(const char *status) {
  if (depth == 0)
    return;
  if (--depth >= MAX_NESTED)
    return;
  typeof(stack[0]) *c = &stack[depth];
  char where[200], func[200], name[300], args[600];
  location(c->loc, where, sizeof where, func, sizeof func);
  snprintf(name, sizeof name, "%s%s%s%s", construct_title(c->construct),
           c->nowait ? " nowait" : "", where[0] ? " @ " : "", where);
  snprintf(args, sizeof args,
           "\"construct\":\"%s\",\"loc\":\"%s\",\"func\":\"%s\","
           "\"device\":%" PRId64 ",\"nowait\":%s,\"status\":\"%s\"",
           construct_title(c->construct), where, func, c->device,
           c->nowait ? "true" : "false", status ? status : "");
  complete_event(HOST_PID, host_tid(), name, "construct", c->t0, args);
}

static bool device_ok(int32_t device) {
  return device >= 0 && device < MAX_DEVICES;
}

void profile_copy(int32_t device, int lane, bool to_device, int64_t bytes,
                  const char *name, uint64_t t0) {
  if (!device_ok(device))
    return;
  char esc[200] = "", title[300], args[400];
  put_json_string(esc, sizeof esc, name);
  const char *dir = to_device ? "to device" : "from device";
  snprintf(title, sizeof title, "%s%s %s %" PRId64 " B",
           lane >= 0 ? "queue " : "", dir, esc[0] ? esc : "?", bytes);
  snprintf(args, sizeof args,
           "\"direction\":\"%s\",\"bytes\":%" PRId64
           ",\"var\":\"%s\",\"queued\":%s,\"host_tid\":%ld",
           to_device ? "to_device" : "from_device", bytes, esc,
           lane >= 0 ? "true" : "false", host_tid());
  complete_event(DEVICE_PID(device), lane >= 0 ? LANE_TID(lane) : TRACK_COPIES,
                 title, "copy", t0, args);
}

void profile_memory(int32_t device, bool alloc, int64_t bytes,
                    const void *tgt, uint64_t t0) {
  if (!device_ok(device))
    return;
  char title[100], args[200];
  if (alloc)
    snprintf(title, sizeof title, "alloc %" PRId64 " B", bytes);
  else
    snprintf(title, sizeof title, "free");
  snprintf(args, sizeof args,
           "\"bytes\":%" PRId64 ",\"device_ptr\":\"%p\",\"host_tid\":%ld",
           bytes, tgt, host_tid());
  complete_event(DEVICE_PID(device), TRACK_MEMORY, title,
                 alloc ? "alloc" : "free", t0, args);
}

void profile_kernel(int32_t device, int lane, const char *kernel,
                    int32_t num_teams, int32_t thread_limit, uint64_t t0) {
  if (!device_ok(device))
    return;
  char esc[200], title[300], args[400];
  put_json_string(esc, sizeof esc, kernel ? kernel : "?");
  snprintf(title, sizeof title, "%s%s", lane >= 0 ? "queue " : "", esc);
  snprintf(args, sizeof args,
           "\"kernel\":\"%s\",\"num_teams\":%d,\"thread_limit\":%d,"
           "\"queued\":%s,\"host_tid\":%ld",
           esc, num_teams, thread_limit, lane >= 0 ? "true" : "false",
           host_tid());
  complete_event(DEVICE_PID(device), lane >= 0 ? LANE_TID(lane) : TRACK_KERNELS,
                 title, "kernel", t0, args);
}

static void put_count(char *buf, size_t len, uint64_t n) {
  if (n == UINT64_MAX)
    snprintf(buf, len, "\"inf\"");
  else
    snprintf(buf, len, "%" PRIu64, n);
}

void profile_refcount(const char *change, const char *count, const char *name,
                      uint64_t before, uint64_t after) {
  char var[200], b[24], a[24], buf[900];
  put_json_string(var, sizeof var, name && name[0] ? name : "?");
  put_count(b, sizeof b, before);
  put_count(a, sizeof a, after);
  uint64_t now = profile_now();
  bool hold = !strcmp(count, "hold");
  int n = snprintf(
      buf, sizeof buf,
      "{\"name\":\"%s%s %s\u2192%s%s\",\"cat\":\"refcount\",\"ph\":\"i\","
      "\"s\":\"t\",\"ts\":%" PRIu64 ".%03u,\"pid\":%d,\"tid\":%ld,"
      "\"args\":{\"var\":\"%s\",\"count\":\"%s\",\"change\":\"%s\","
      "\"before\":%s,\"after\":%s}}",
      var, hold ? " (hold)" : "", before == UINT64_MAX ? "inf" : b,
      after == UINT64_MAX ? "inf" : a,
      !strcmp(change, "suppressed")        ? " (already counted)"
      : !strcmp(change, "deferred_delete") ? " (removed when done)"
                                           : "",
      now / 1000, (unsigned)(now % 1000), HOST_PID, host_tid(), var, count,
      change, b, a);
  if (n < 0 || (size_t)n >= sizeof buf)
    return;
  pthread_mutex_lock(&profile_lock);
  name_tracks_locked(HOST_PID, host_tid());
  write_event_locked(buf);
  pthread_mutex_unlock(&profile_lock);
}

void profile_startup(int32_t device, uint64_t t0) {
  if (device_ok(device))
    complete_event(DEVICE_PID(device), TRACK_RUNTIME, "start device",
                   "startup", t0, "");
}

void profile_wait(int32_t device, const char *what, const ident_t *loc,
                  uint64_t t0) {
  char where[200], func[200], title[300], args[400];
  location(loc, where, sizeof where, func, sizeof func);
  snprintf(title, sizeof title, "wait for %s%s%s", what ? what : "?",
           where[0] ? " @ " : "", where);
  snprintf(args, sizeof args, "\"device\":%d,\"loc\":\"%s\"", device, where);
  complete_event(HOST_PID, host_tid(), title, "wait", t0, args);
}

int profile_lane_take(int32_t device) {
  if (!PROFILE_ON() || !device_ok(device))
    return -1;
  pthread_mutex_lock(&profile_lock);
  int lane = 0;
  while (lane < MAX_LANES - 1 && (lanes[device] >> lane & 1))
    lane++;
  lanes[device] |= (uint64_t)1 << lane; /* the last lane is shared */
  pthread_mutex_unlock(&profile_lock);
  return lane;
}

void profile_nowait_done(int32_t device, int lane, const char *what,
                         const ident_t *loc, bool failed, uint64_t t0) {
  if (lane < 0 || !device_ok(device))
    return;
  char where[200], func[200], title[300], args[400];
  location(loc, where, sizeof where, func, sizeof func);
  snprintf(title, sizeof title, "%s%s%s", what ? what : "nowait",
           where[0] ? " @ " : "", where);
  snprintf(args, sizeof args, "\"loc\":\"%s\",\"status\":\"%s\"", where,
           failed ? "failed" : "done");
  complete_event(DEVICE_PID(device), LANE_TID(lane), title, "nowait", t0,
                 args);
  pthread_mutex_lock(&profile_lock);
  if (lane < MAX_LANES - 1)
    lanes[device] &= ~((uint64_t)1 << lane);
  pthread_mutex_unlock(&profile_lock);
}
