/*
 * link.c - the host's MPI link to its device ranks (link.h).
 *
 * MPI is the program's when it initialised it (a hybrid MPI + OpenMP
 * program): the plugin then never calls MPI_Init, only checks that MPI is
 * up, and closes its devices from a delete callback of an attribute on
 * MPI_COMM_SELF, which MPI_Finalize runs first, while MPI still works. A
 * program that links MPI but has not called MPI_Init by its first remote
 * construct fails that construct with the reason (an MPI_Init after ours
 * would fail). Otherwise the plugin initialises MPI itself
 * (MPI_THREAD_MULTIPLE) and finalises it when the plugin is released.
 * With less than MPI_THREAD_MULTIPLE, every call holds one lock.
 *
 * Locks: link_lock (the link's state), then a device's remote.lock (its
 * calls), then mpi_lock (only when MPI is not thread-multiple).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "link.h"
#include "machine.h"
#include "wire_wait.h"

extern char **environ;

static struct topology topo;
static struct remote remotes[TOPOLOGY_MAX_DEVICES];
static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;
static int state; /* 0 not up, 1 up, -1 failed, 2 closed */
static char failed_why[400];
static MPI_Comm comm = MPI_COMM_NULL;
static int we_initialised, program_mpi, serialize;
static uint32_t info_flags;
static unsigned timeout_s; /* SIMDEVICE_TIMEOUT (0: none) */
static char this_machine[MACHINE_ID_MAX]; /* machine.h */

/* ---- errors --------------------------------------------------------------- */
static __thread __tgt_rtl_error last_error;

void link_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  memset(&last_error, 0, sizeof last_error);
  vsnprintf(last_error.message, sizeof last_error.message, fmt, ap);
  va_end(ap);
}

void link_error_set(const __tgt_rtl_error *e) { last_error = *e; }

void link_error_take(__tgt_rtl_error *out) {
  *out = last_error;
  memset(&last_error, 0, sizeof last_error);
}

/* ---- fork ----------------------------------------------------------------- */
/* In the child of a fork(): the MPI connection is the parent's, so the
 * remote devices become unusable here and nothing MPI is called, at exit
 * either (as a local device belongs to the process that started it). */
static pid_t owner_pid; /* the process that owns the devices */
static int forked;

static void after_fork_in_child(void) {
  forked = 1;
  pthread_mutex_init(&link_lock, NULL);
  pthread_mutex_init(&mpi_lock, NULL);
  for (int i = 0; i < TOPOLOGY_MAX_DEVICES; i++) {
    pthread_mutex_init(&remotes[i].lock, NULL);
    snprintf(remotes[i].lost_cause, sizeof remotes[i].lost_cause,
             "simdevice-mpi: device %d belongs to process %d, which created "
             "this process (pid %d) with fork(): a forked child cannot use "
             "its parent's device (a remote device: its MPI connection is "
             "the parent's)", i, (int)owner_pid, (int)getpid());
    remotes[i].lost = 1;
    remotes[i].pidfd = -1; /* (the parent's descriptor: never signalled) */
  }
  state = 2;
}

/* ---- setup ---------------------------------------------------------------- */
void link_configure(int program_uses_mpi, uint32_t flags) {
  char why[8];
  topology_get(&topo, why, sizeof why);
  program_mpi = program_uses_mpi;
  info_flags = flags;
  const char *t = getenv("SIMDEVICE_TIMEOUT");
  timeout_s = t != NULL ? (unsigned)strtoul(t, NULL, 10) : 0;
  machine_id(this_machine, sizeof this_machine);
  for (int i = 0; i < TOPOLOGY_MAX_DEVICES; i++) {
    remotes[i].index = i;
    remotes[i].pidfd = -1;
    remotes[i].rank = topology_device_rank(&topo, i);
    pthread_mutex_init(&remotes[i].lock, NULL);
  }
  owner_pid = getpid();
  pthread_atfork(NULL, NULL, after_fork_in_child);
}

const struct topology *link_topology(void) { return &topo; }

uint32_t link_info_flags(void) { return info_flags; }

/* (devices not started yet get them in their WIRE_HELLO) */
void link_set_info_flags(uint32_t flags) { info_flags = flags; }

struct remote *link_remote(int32_t id) {
  if (id < 0 || id >= topo.count) {
    link_error("simdevice-mpi: device %d does not exist (%d remote device%s)",
               id, topo.count, topo.count == 1 ? "" : "s");
    return NULL;
  }
  return &remotes[id];
}

/* The server beside this library (simdevice/), or SIMDEVICE_MPI_SERVER. */
static void server_path(char *out, size_t len) {
  const char *named = getenv("SIMDEVICE_MPI_SERVER");
  Dl_info d;
  if (named != NULL && *named != '\0') {
    snprintf(out, len, "%s", named);
  } else if (dladdr((void *)server_path, &d) != 0 && d.dli_fname != NULL) {
    snprintf(out, len, "%s", d.dli_fname);
    char *slash = strrchr(out, '/');
    snprintf(slash ? slash + 1 : out, len - (size_t)(slash ? slash + 1 - out : 0),
             "simdevice-mpi-server");
  } else {
    snprintf(out, len, "simdevice-mpi-server");
  }
}

static int spawn_ranks(void) {
  char path[PATH_MAX];
  server_path(path, sizeof path);
  if (access(path, X_OK) != 0) {
    snprintf(failed_why, sizeof failed_why, "simdevice-mpi: cannot spawn the "
             "device ranks: %.250s: %.80s", path, strerror(errno));
    return -1;
  }
  MPI_Info info;
  MPI_Info_create(&info);
  const char *hosts = getenv("SIMDEVICE_MPI_HOSTS");
  if (hosts != NULL && *hosts != '\0')
    MPI_Info_set(info, "host", hosts);
  const char *hostfile = getenv("SIMDEVICE_MPI_HOSTFILE");
  if (hostfile != NULL && *hostfile != '\0')
    MPI_Info_set(info, "hostfile", hostfile);
  int *codes = calloc((size_t)topo.count, sizeof *codes);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_spawn(path, MPI_ARGV_NULL, topo.count, info, 0,
                          MPI_COMM_SELF, &comm, codes);
  MPI_Info_free(&info);
  for (int i = 0; rc == MPI_SUCCESS && codes != NULL && i < topo.count; i++)
    if (codes[i] != MPI_SUCCESS)
      rc = codes[i];
  free(codes);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, msg, &n);
    snprintf(failed_why, sizeof failed_why, "simdevice-mpi: MPI_Comm_spawn "
             "of %d device rank%s (%.200s) failed: %.100s", topo.count,
             topo.count == 1 ? "" : "s", path, msg);
    return -1;
  }
  return 0;
}

static int finalize_hook(MPI_Comm c, int key, void *value, void *extra) {
  (void)c, (void)key, (void)value, (void)extra;
  link_close();
  return MPI_SUCCESS;
}

/* Under link_lock. */
static int bring_up(void) {
  int inited = 0, finalized = 0, provided = MPI_THREAD_SINGLE;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized) {
    snprintf(failed_why, sizeof failed_why, "simdevice-mpi: MPI is already "
             "finalized: remote devices are gone after MPI_Finalize");
    return -1;
  }
  if (!inited && program_mpi) {
    snprintf(failed_why, sizeof failed_why, "simdevice-mpi: the program uses "
             "MPI but has not called MPI_Init yet: call MPI_Init or "
             "MPI_Init_thread before the first target construct on a remote "
             "device (the plugin never initialises MPI behind a program "
             "that does)");
    return -1;
  }
  if (!inited) {
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) !=
        MPI_SUCCESS) {
      snprintf(failed_why, sizeof failed_why, "simdevice-mpi: MPI_Init_thread "
               "failed");
      return -1;
    }
    we_initialised = 1;
  } else {
    MPI_Query_thread(&provided);
  }
  serialize = provided < MPI_THREAD_MULTIPLE;
  if (topo.spawn) {
    if (spawn_ranks() != 0)
      return -1;
  } else {
    comm = MPI_COMM_WORLD;
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (!we_initialised) {
    int key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
  }
  return 0;
}

int link_up(void) {
  pthread_mutex_lock(&link_lock);
  if (state == 0)
    state = bring_up() == 0 ? 1 : -1;
  int rc = state == 1 ? 0 : -1;
  if (forked)
    link_error("%s", remotes[0].lost_cause);
  else if (state == 2)
    link_error("simdevice-mpi: the remote devices were released (at "
               "MPI_Finalize or the plugin's release)");
  else if (rc != 0)
    link_error("%s", failed_why);
  pthread_mutex_unlock(&link_lock);
  return rc;
}

/* ---- one call -------------------------------------------------------------- */
struct watch {
  struct remote *r;
  const char *what;
  struct timespec start;
};

static void lose(struct remote *r, const char *fmt, const char *what) {
  snprintf(r->lost_cause, sizeof r->lost_cause, fmt, r->index, r->rank,
           (int)r->pid, r->host, what);
  r->lost = 1;
  if (r->pidfd >= 0) /* nothing may outlive the program */
    syscall(SYS_pidfd_send_signal, r->pidfd, SIGKILL, NULL, 0);
}

/* Called every 100 ms while a reply is awaited: 1 to give up. */
static int watch_check(void *ctx) {
  struct watch *w = ctx;
  struct remote *r = w->r;
  if (r->pidfd >= 0) {
    struct pollfd p = {.fd = r->pidfd, .events = POLLIN};
    if (poll(&p, 1, 0) > 0) {
      lose(r, "simdevice-mpi: device %d: its MPI rank %d (pid %d on %s) "
              "ended during %s; a remote device does not restart", w->what);
      return 1;
    }
  }
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  /* The rank's own device ends a kernel at SIMDEVICE_TIMEOUT and answers;
   * a rank silent 2 s longer hangs itself (stopped, deadlocked). */
  if (timeout_s > 0 && now.tv_sec - w->start.tv_sec > (time_t)timeout_s + 2) {
    char fmt[300];
    snprintf(fmt, sizeof fmt, "simdevice-mpi: device %%d: its MPI rank %%d "
             "(pid %%d on %%s) did not answer %%s within SIMDEVICE_TIMEOUT=%u "
             "s (+2 s): the rank hangs or is stopped; it is given up%s",
             timeout_s, r->pidfd >= 0 ? " and killed" : "");
    lose(r, fmt, w->what);
    return 1;
  }
  return 0;
}

static void fail_lost(struct remote *r) {
  memset(&last_error, 0, sizeof last_error);
  snprintf(last_error.message, sizeof last_error.message, "%s", r->lost_cause);
  last_error.device_lost = 1;
}

int link_send(struct remote *r, struct wire_request *q, const void *payload,
              const char *what) {
  (void)what;
  if (r->lost) {
    fail_lost(r);
    return -1;
  }
  q->magic = WIRE_MAGIC;
  if (serialize)
    pthread_mutex_lock(&mpi_lock);
  MPI_Send(q, sizeof *q, MPI_BYTE, r->rank, WIRE_TAG_REQUEST, comm);
  if (q->payload > 0)
    wire_send_bytes(payload, q->payload, r->rank, WIRE_TAG_REQUEST, comm);
  if (serialize)
    pthread_mutex_unlock(&mpi_lock);
  return 0;
}

int link_finish(struct remote *r, void *in, size_t in_len, uint64_t a_out[2],
                const char *what) {
  struct wire_reply rep;
  struct watch w = {.r = r, .what = what};
  clock_gettime(CLOCK_MONOTONIC, &w.start);
  if (serialize)
    pthread_mutex_lock(&mpi_lock);
  MPI_Request req;
  MPI_Irecv(&rep, sizeof rep, MPI_BYTE, r->rank, WIRE_TAG_REPLY, comm, &req);
  int ok = wire_wait(&req, NULL, watch_check, &w) == 0;
  if (ok && rep.payload > 0)
    ok = wire_recv_bytes_checked(rep.payload <= in_len ? in : NULL,
                                 rep.payload, r->rank, WIRE_TAG_REPLY, comm,
                                 watch_check, &w) == 0;
  char *out = NULL;
  if (ok && rep.output > 0) {
    out = malloc(rep.output);
    ok = wire_recv_bytes_checked(out, rep.output, r->rank, WIRE_TAG_REPLY,
                                 comm, watch_check, &w) == 0;
  }
  if (ok && rep.a_last)
    ok = wire_recv_bytes_checked(rep.a, sizeof rep.a, r->rank, WIRE_TAG_REPLY,
                                 comm, watch_check, &w) == 0;
  if (serialize)
    pthread_mutex_unlock(&mpi_lock);
  if (!ok) {
    free(out);
    fail_lost(r);
    return -1;
  }
  if (out != NULL) { /* device output, in program order */
    fflush(stdout);
    fwrite(out, 1, rep.output, stdout);
    fflush(stdout);
    free(out);
  }
  if (a_out != NULL)
    memcpy(a_out, rep.a, sizeof rep.a);
  if (rep.rc != OFFLOAD_SUCCESS) {
    if (rep.has_error)
      link_error_set(&rep.error);
    else
      link_error("simdevice-mpi: device %d: %s failed on MPI rank %d",
                 r->index, what, r->rank);
    return rep.rc;
  }
  if (rep.payload > in_len) {
    link_error("simdevice-mpi: device %d: %s answered %llu bytes, %zu "
               "expected", r->index, what, (unsigned long long)rep.payload,
               in_len);
    return OFFLOAD_FAIL;
  }
  return OFFLOAD_SUCCESS;
}

int link_call(struct remote *r, struct wire_request *q, const void *payload,
              void *in, size_t in_len, uint64_t a_out[2], const char *what) {
  if (link_send(r, q, payload, what) != 0)
    return OFFLOAD_FAIL;
  return link_finish(r, in, in_len, a_out, what);
}

/* The settings the rank's own simdevice plugin reads: the program's. */
static char *settings_payload(size_t *len) {
  size_t n = 0;
  for (char **e = environ; *e != NULL; e++)
    if (strncmp(*e, "SIMDEVICE_", 10) == 0 || strncmp(*e, "SIMTARGET_", 10) == 0)
      n += strlen(*e) + 1;
  char *buf = malloc(n ? n : 1), *p = buf;
  for (char **e = environ; buf != NULL && *e != NULL; e++)
    if (strncmp(*e, "SIMDEVICE_", 10) == 0 || strncmp(*e, "SIMTARGET_", 10) == 0) {
      size_t l = strlen(*e) + 1;
      memcpy(p, *e, l);
      p += l;
    }
  *len = n;
  return buf;
}

int link_hello(struct remote *r) {
  if (r->hello)
    return 0;
  size_t len;
  char *env = settings_payload(&len);
  struct wire_request q = {.op = WIRE_HELLO, .a = {(uint64_t)r->index,
                                                   info_flags}, .payload = len};
  uint64_t a[2];
  char who[sizeof r->host + MACHINE_ID_MAX] = "";
  int rc = link_call(r, &q, env, who, sizeof who - 1, a, "its start");
  free(env);
  if (rc != OFFLOAD_SUCCESS)
    return -1;
  /* host name, NUL, machine id, NUL (wire.h); the pid is one of ours
   * only when the rank runs in this machine's and this pid namespace:
   * a rank on another machine (or in another container) of the same
   * name has a pid that here names some other process. */
  snprintf(r->host, sizeof r->host, "%.*s", (int)sizeof r->host - 1, who);
  size_t n = strnlen(who, sizeof who - 1) + 1;
  const char *machine = n < sizeof who ? who + n : "";
  r->pid = (pid_t)a[0];
  int same = machine_same(machine, this_machine);
  if (same)
    r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
  if (info_flags & INFO_PLUGIN_KERNEL)
    fprintf(stderr, "simdevice-mpi: device %d is MPI rank %d, pid %d on %s: "
            "%s\n", r->index, r->rank, (int)r->pid, r->host,
            !same ? "another machine or pid namespace (its pid is not "
                    "watched: a lost rank is seen by SIMDEVICE_TIMEOUT or "
                    "Open MPI)"
            : r->pidfd >= 0 ? "this machine (its pid is watched)"
                            : "this machine, but its pid cannot be watched");
  r->hello = 1;
  return 0;
}

/* ---- the end --------------------------------------------------------------- */
/* When waiting for devices at exit ends: 2 s after the first such wait,
 * for every device and step together, as for a local device (0: none yet). */
static _Atomic int64_t exit_deadline_ns;

int link_lock_for_exit(struct remote *r) {
  if (pthread_mutex_trylock(&r->lock) == 0)
    return 0;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  int64_t none = 0, deadline = (int64_t)now.tv_sec * 1000000000ll +
                               now.tv_nsec + 2000000000ll;
  if (!atomic_compare_exchange_strong(&exit_deadline_ns, &none, deadline))
    deadline = none;
  struct timespec until = {.tv_sec = deadline / 1000000000ll,
                           .tv_nsec = deadline % 1000000000ll};
  if (pthread_mutex_timedlock(&r->lock, &until) == 0)
    return 0;
  /* A call still runs (a kernel that never ends): the rank is given up,
   * and killed when on this machine (its waiting thread then returns). */
  if (!r->lost)
    lose(r, "simdevice-mpi: device %d: its MPI rank %d (pid %d on %s) was "
            "still busy with %s when the program ended; given up", "a call");
  fail_lost(r);
  return -1;
}
int link_closed(void) {
  pthread_mutex_lock(&link_lock);
  int closed = state == 2;
  pthread_mutex_unlock(&link_lock);
  return closed;
}

void link_close(void) {
  pthread_mutex_lock(&link_lock);
  /* MPMD ranks wait for their program: start MPI to release them even when
   * no device was used (not behind an MPI program's back). */
  if (state == 0 && !topo.spawn && topo.count > 0 && !program_mpi)
    state = bring_up() == 0 ? 1 : -1;
  if (state != 1) {
    if (state == 0)
      state = 2;
    pthread_mutex_unlock(&link_lock);
    return;
  }
  int any_lost = 0;
  for (int i = 0; i < topo.count; i++) {
    struct remote *r = &remotes[i];
    if (link_lock_for_exit(r) != 0) {
      any_lost = 1;
      continue;
    }
    if (!r->lost) { /* every rank waits for its EXIT, used or not */
      struct wire_request q = {.op = WIRE_EXIT};
      link_call(r, &q, NULL, NULL, 0, NULL, "the release");
    }
    any_lost |= r->lost;
    if (r->pidfd >= 0)
      close(r->pidfd);
    r->pidfd = -1;
    pthread_mutex_unlock(&r->lock);
  }
  /* MPI_Finalize and a disconnect wait for every rank; one lost never
   * comes: then the plugin leaves MPI as it is (mpirun reports it). */
  if (topo.spawn && !any_lost)
    MPI_Comm_disconnect(&comm);
  if (we_initialised && !any_lost)
    MPI_Finalize();
  state = 2;
  pthread_mutex_unlock(&link_lock);
}
