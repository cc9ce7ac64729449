/*
 * server.c - simdevice-mpi-server: one remote simdevice device, one MPI
 * rank (wire.h). Started by mpirun beside the program (MPMD: the ranks
 * after the program's app context) or spawned by the plugin
 * (MPI_Comm_spawn; the parent is the host). It runs the local simdevice
 * plugin in this process for the one device it serves, so the device
 * process, its images, runtime, guard pages, faults and printf are the
 * local device's code; this file is only the transport.
 *
 * Device stdout: this process's fd 1 is a pipe (set before the device
 * process starts, which inherits it); a thread drains it, and each reply
 * carries what came out during the call, for the host to write in order
 * (the local device flushes its stdout before it answers a command that ran
 * device code, so the bytes are in the pipe by then).
 *
 * Threads: the main thread does all MPI calls and plugin calls; the output
 * thread only reads the pipe (under out_lock).
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "omptarget.h"
#include "machine.h"
#include "omptarget_plugin.h"
#include "huge_memory.h"
#include "wire.h"
#include "wire_wait.h"

void *__tgt_rtl_simdevice_host_view(int32_t id, void *tgt, int64_t size);
void __tgt_rtl_simdevice_memory_file_maker(int (*make)(uint64_t bytes));
int32_t __tgt_rtl_simdevice_memory_range(int32_t id, uint64_t *base,
                                         uint64_t *size);

static MPI_Comm host_comm; /* the host: MPI_COMM_WORLD (MPMD) or the parent */
static int host_rank = -1; /* in host_comm; -1 until the first request */
static int32_t dev_id;     /* the host's number for this device */
static uint64_t mem_range[2]; /* device memory: base, bytes (0 0: unknown) */

/* ---- device stdout ------------------------------------------------------ */
static int out_fd = -1;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static char *out_buf;
static size_t out_len, out_cap;

/* Under out_lock: reads what the pipe holds now. */
static void out_drain_locked(void) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read(out_fd, chunk, sizeof chunk);
    if (n <= 0)
      return;
    if (out_len + (size_t)n > out_cap) {
      size_t cap = out_cap ? out_cap * 2 : 65536;
      while (cap < out_len + (size_t)n)
        cap *= 2;
      char *b = realloc(out_buf, cap);
      if (b == NULL)
        return; /* the rest stays in the pipe for the next reply */
      out_buf = b;
      out_cap = cap;
    }
    memcpy(out_buf + out_len, chunk, (size_t)n);
    out_len += (size_t)n;
  }
}

static void *out_thread(void *arg) {
  (void)arg;
  struct pollfd p = {.fd = out_fd, .events = POLLIN};
  for (;;) {
    if (poll(&p, 1, -1) <= 0)
      continue;
    pthread_mutex_lock(&out_lock);
    out_drain_locked();
    pthread_mutex_unlock(&out_lock);
    if (p.revents & (POLLHUP | POLLERR))
      return NULL;
  }
}

/* Fd 1 becomes the write end of a pipe drained by out_thread. */
static int out_setup(void) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    return -1;
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  fflush(stdout);
  if (dup2(p[1], 1) < 0)
    return -1;
  close(p[1]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  out_fd = p[0];
  pthread_t t;
  return pthread_create(&t, NULL, out_thread, NULL) == 0 ? 0 : -1;
}

/* ---- replies ------------------------------------------------------------ */
static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The reply, its data and the device output of the call; with `since`
 * (a timed retrieve), a[] = {*since, the end of the data's send} comes
 * last (wire.h, a_last). `read_pipe`: what the pipe holds is read first,
 * for a call that ran device code (the device flushed its stdout before it
 * answered). A copy to or from the host runs none: its reply carries what
 * out_thread took already and spares the read, a system call per copy. */
static void reply_out(int rc, const uint64_t a[2], const void *data,
                      size_t len, const uint64_t *since, int read_pipe) {
  struct wire_reply r;
  memset(&r, 0, sizeof r);
  r.rc = rc;
  if (a != NULL)
    memcpy(r.a, a, sizeof r.a);
  r.payload = len;
  r.a_last = since != NULL;
  if (rc != OFFLOAD_SUCCESS && __tgt_rtl_get_last_error(dev_id, &r.error) == 0)
    r.has_error = 1;
  fflush(stdout);
  pthread_mutex_lock(&out_lock);
  if (read_pipe)
    out_drain_locked();
  r.output = out_len;
  MPI_Send(&r, sizeof r, MPI_BYTE, host_rank, WIRE_TAG_REPLY, host_comm);
  if (len > 0)
    wire_send_bytes(data, len, host_rank, WIRE_TAG_REPLY, host_comm);
  uint64_t times[2] = {since ? *since : 0, now_ns()};
  if (out_len > 0)
    wire_send_bytes(out_buf, out_len, host_rank, WIRE_TAG_REPLY, host_comm);
  out_len = 0;
  if (since != NULL)
    MPI_Send(times, sizeof times, MPI_BYTE, host_rank, WIRE_TAG_REPLY,
             host_comm);
  pthread_mutex_unlock(&out_lock);
}

static void reply(int rc, const uint64_t a[2], const void *data, size_t len) {
  reply_out(rc, a, data, len, NULL, 1);
}

static void reply_fail(const char *fmt, const char *detail) {
  struct wire_reply r;
  memset(&r, 0, sizeof r);
  r.rc = OFFLOAD_FAIL;
  r.has_error = 1;
  snprintf(r.error.message, sizeof r.error.message, fmt, detail);
  MPI_Send(&r, sizeof r, MPI_BYTE, host_rank, WIRE_TAG_REPLY, host_comm);
}

/* ---- requests ------------------------------------------------------------ */
static void serve_hello(const struct wire_request *q, char *payload) {
  dev_id = (int32_t)q->a[0];
  for (char *p = payload, *end = payload + q->payload; p < end;
       p += strlen(p) + 1) {
    char *eq = strchr(p, '=');
    if (eq == NULL)
      continue;
    *eq = '\0';
    setenv(p, eq + 1, 1);
    *eq = '=';
  }
  /* One device here: the host's number for it, so that its messages,
   * its memory range and omp_get_device_num() are those a local device of
   * that number has. */
  char n[16];
  snprintf(n, sizeof n, "%d", dev_id + 1);
  setenv("SIMDEVICE_NUM_DEVICES", n, 1);
  setenv("SIMDEVICE_EARLY_START", "0", 1);
  __tgt_rtl_set_info_flag((uint32_t)q->a[1]);
  __tgt_rtl_init_plugin();
  int count = __tgt_rtl_number_of_devices();
  if (count <= dev_id) {
    __tgt_rtl_error e;
    memset(&e, 0, sizeof e);
    __tgt_rtl_get_last_error(0, &e);
    reply_fail("simdevice-mpi-server: no local simdevice device: %s",
               e.message);
    return;
  }
  /* The host name, then which machine and pid namespace the pid is of
   * (machine.h): the host watches the pid only when they are its own. */
  char who[256 + MACHINE_ID_MAX];
  gethostname(who, 256);
  who[255] = '\0';
  size_t len = strlen(who) + 1;
  machine_id(who + len, sizeof who - len);
  uint64_t a[2] = {(uint64_t)getpid(), 0};
  reply(OFFLOAD_SUCCESS, a, who, len + strlen(who + len) + 1);
}

/* Images: the host's image id -> our copy of it (kept until unloaded). */
struct image_copy {
  uint64_t host_id;
  __tgt_device_image image;
  struct image_copy *next;
};
static struct image_copy *images;

static void serve_load(const struct wire_request *q, char *payload) {
  uint64_t bytes = q->a[1], count = q->a[2];
  struct image_copy *c = calloc(1, sizeof *c);
  __tgt_offload_entry *e = calloc(count ? count : 1, sizeof *e);
  if (c == NULL || e == NULL || bytes > q->payload) {
    free(c);
    free(e);
    reply_fail("simdevice-mpi-server: %s", "no memory for an image");
    return;
  }
  char *p = payload + bytes, *end = payload + q->payload;
  for (uint64_t i = 0; i < count && p + sizeof(struct wire_entry) <= end; i++) {
    struct wire_entry w;
    memcpy(&w, p, sizeof w);
    p += sizeof w;
    e[i].addr = (void *)(uintptr_t)w.addr;
    e[i].size = (size_t)w.size;
    e[i].flags = w.flags;
    e[i].reserved = w.reserved;
    e[i].name = strndup(p, (size_t)w.name_len);
    p += w.name_len;
  }
  c->host_id = q->a[0];
  c->image.ImageStart = payload; /* kept: the payload is not freed */
  c->image.ImageEnd = payload + bytes;
  c->image.EntriesBegin = e;
  c->image.EntriesEnd = e + count;
  __tgt_target_table *t = __tgt_rtl_load_binary(dev_id, &c->image);
  if (t == NULL) {
    reply(OFFLOAD_FAIL, NULL, NULL, 0);
    return;
  }
  c->next = images;
  images = c;
  uint64_t *addrs = calloc(count ? count : 1, sizeof *addrs);
  for (uint64_t i = 0; addrs != NULL && i < count; i++)
    addrs[i] = (uint64_t)(uintptr_t)t->EntriesBegin[i].addr;
  reply(addrs ? OFFLOAD_SUCCESS : OFFLOAD_FAIL, NULL, addrs,
        addrs ? count * sizeof *addrs : 0);
  free(addrs);
}

static void serve_unload(const struct wire_request *q) {
  for (struct image_copy **pp = &images; *pp != NULL; pp = &(*pp)->next) {
    if ((*pp)->host_id != q->a[0])
      continue;
    int rc = __tgt_rtl_unload_binary(dev_id, &(*pp)->image);
    *pp = (*pp)->next; /* (the copy stays: the device may name it) */
    reply(rc, NULL, NULL, 0);
    return;
  }
  reply(OFFLOAD_SUCCESS, NULL, NULL, 0);
}

/* Reads [ptr, ptr+size) of device memory: the host view when it is a live
 * allocation (no copy), else a buffer filled by data_retrieve. */
static const void *device_bytes(void *ptr, uint64_t size, void **buffer,
                                int *rc) {
  *buffer = NULL;
  *rc = OFFLOAD_SUCCESS;
  void *view = __tgt_rtl_simdevice_host_view(dev_id, ptr, (int64_t)size);
  if (view != NULL || size == 0)
    return view;
  *buffer = malloc(size);
  if (*buffer == NULL ||
      __tgt_rtl_data_retrieve(dev_id, *buffer, ptr, (int64_t)size) != 0)
    *rc = OFFLOAD_FAIL;
  return *buffer;
}

/* A copy to the host; timed (q->a[5]) from here to its data sent. */
static void serve_retrieve(const struct wire_request *q) {
  uint64_t start = now_ns();
  void *buffer;
  int rc;
  const void *src = device_bytes((void *)(uintptr_t)q->a[0], q->a[1], &buffer,
                                 &rc);
  reply_out(rc, NULL, rc == OFFLOAD_SUCCESS ? src : NULL,
            rc == OFFLOAD_SUCCESS ? q->a[1] : 0,
            q->a[5] && rc == OFFLOAD_SUCCESS ? &start : NULL, 0);
  free(buffer);
}

/* Receives size bytes from `src` (tag, comm) into device memory at ptr. */
static int receive_into_device(void *ptr, uint64_t size, int src, int tag,
                               MPI_Comm comm) {
  void *view = __tgt_rtl_simdevice_host_view(dev_id, ptr, (int64_t)size);
  if (view != NULL) {
    wire_recv_bytes(view, size, src, tag, comm);
    return OFFLOAD_SUCCESS;
  }
  void *buf = malloc(size ? size : 1);
  if (buf == NULL) {
    wire_recv_bytes(NULL, size, src, tag, comm); /* drained */
    return OFFLOAD_FAIL;
  }
  wire_recv_bytes(buf, size, src, tag, comm);
  int rc = __tgt_rtl_data_submit(dev_id, ptr, buf, (int64_t)size);
  free(buf);
  return rc;
}

/* A copy from the host, straight into device memory; timed (q->a[5]) from
 * its first byte awaited to its last in place. */
static void serve_submit(const struct wire_request *q) {
  uint64_t t[2] = {now_ns(), 0};
  int rc = receive_into_device((void *)(uintptr_t)q->a[0], q->a[1], host_rank,
                               WIRE_TAG_REQUEST, host_comm);
  t[1] = now_ns();
  reply_out(rc, q->a[5] ? t : NULL, NULL, 0, NULL, 0);
}

static void serve_peer_send(const struct wire_request *q) {
  void *buffer;
  int rc;
  const void *src = device_bytes((void *)(uintptr_t)q->a[0], q->a[1], &buffer,
                                 &rc);
  /* Always sent, so the peer never waits forever; a failed read sends
   * zeros and fails here (the host fails the copy). */
  if (rc != OFFLOAD_SUCCESS) {
    free(buffer);
    buffer = calloc(1, q->a[1] ? q->a[1] : 1);
    src = buffer;
  }
  if (src != NULL)
    wire_send_bytes(src, q->a[1], (int)q->a[2], WIRE_TAG_PEER, MPI_COMM_WORLD);
  free(buffer);
  reply(src != NULL ? rc : OFFLOAD_FAIL, NULL, NULL, 0);
}

/* A kernel, called as its KernelArgs version (a[4]) says, through the
 * local plugin's run_target_kernel (version 0: as run_target_team_region);
 * timed (a[5]) by the device process, as a local device's. */
static void serve_run(const struct wire_request *q, char *payload) {
  int32_t n = (int32_t)q->a[1];
  void **args = calloc(n > 0 ? (size_t)n : 1, sizeof *args);
  ptrdiff_t *offsets = calloc(n > 0 ? (size_t)n : 1, sizeof *offsets);
  uint64_t times[2] = {0, 0};
  int rc = OFFLOAD_FAIL;
  if (args != NULL && offsets != NULL && q->payload >= (uint64_t)n * 8) {
    memcpy(args, payload, (size_t)n * 8);
    /* (not timed when it fails: the times stay 0, the host's are used) */
    if (q->a[5])
      __tgt_rtl_time_next_op(dev_id, times);
    rc = __tgt_rtl_run_target_kernel(dev_id, (void *)(uintptr_t)q->a[0], args,
                                     offsets, n, (int32_t)q->a[2],
                                     (int32_t)q->a[3], 0, (uint32_t)q->a[4],
                                     NULL);
    if (q->a[5] && rc != OFFLOAD_SUCCESS)
      __tgt_rtl_time_next_op(dev_id, NULL);
  }
  free(args);
  free(offsets);
  reply(rc, q->a[5] ? times : NULL, NULL, 0);
}

/* The device's memory range in the reply (a[0] base, a[1] bytes; 0 0 when
 * it is not known), for the host to reserve (wire.h). */
static void serve_init(void) {
  int rc = __tgt_rtl_init_device(dev_id);
  if (rc == OFFLOAD_SUCCESS &&
      __tgt_rtl_simdevice_memory_range(dev_id, &mem_range[0], &mem_range[1]) !=
          OFFLOAD_SUCCESS)
    mem_range[0] = mem_range[1] = 0;
  reply(rc, mem_range, NULL, 0);
}

/* One request (payload already received); 1 when the rank should end. */
static int serve(const struct wire_request *q, char *payload) {
  void *ptr = (void *)(uintptr_t)q->a[0];
  uint64_t r[2] = {0, 0};
  switch (q->op) {
  case WIRE_HELLO: serve_hello(q, payload); break;
  case WIRE_INIT_DEVICE: serve_init(); break;
  case WIRE_LOAD_BINARY: serve_load(q, payload); return 2; /* payload kept */
  case WIRE_UNLOAD_BINARY: serve_unload(q); break;
  case WIRE_DATA_ALLOC:
    r[0] = (uint64_t)(uintptr_t)__tgt_rtl_data_alloc(
        dev_id, (int64_t)q->a[0], (void *)(uintptr_t)q->a[1], (int32_t)q->a[2]);
    if (r[0] >= mem_range[0] && r[0] - mem_range[0] < mem_range[1])
      huge_memory_fill_edges(r[0] - mem_range[0], q->a[0]);
    reply(r[0] ? OFFLOAD_SUCCESS : OFFLOAD_FAIL, r, NULL, 0);
    break;
  case WIRE_DATA_DELETE: reply(__tgt_rtl_data_delete(dev_id, ptr), NULL, NULL, 0); break;
  case WIRE_DATA_SUBMIT: serve_submit(q); break;
  case WIRE_DATA_RETRIEVE: serve_retrieve(q); break;
  case WIRE_SEND_TO_PEER: serve_peer_send(q); break;
  case WIRE_RECV_FROM_PEER:
    reply(receive_into_device(ptr, q->a[1], (int)q->a[2], WIRE_TAG_PEER,
                              MPI_COMM_WORLD),
          NULL, NULL, 0);
    break;
  case WIRE_RUN: serve_run(q, payload); break;
  case WIRE_FPTR_MAP:
    reply(__tgt_rtl_set_function_ptr_map(dev_id, q->a[0],
                                         (const __tgt_fptr_map *)payload),
          NULL, NULL, 0);
    break;
  case WIRE_NAME_RANGE:
    r[0] = (uint64_t)(int64_t)__tgt_rtl_name_range(
        dev_id, ptr, (int64_t)q->a[1], payload != NULL ? payload : "");
    reply(OFFLOAD_SUCCESS, r, NULL, 0);
    break;
  case WIRE_PRINT_INFO: reply(__tgt_rtl_print_device_info(dev_id), NULL, NULL, 0); break;
  case WIRE_DEINIT_DEVICE: reply(__tgt_rtl_deinit_device(dev_id), NULL, NULL, 0); break;
  case WIRE_EXIT:
    __tgt_rtl_deinit_plugin();
    reply(OFFLOAD_SUCCESS, NULL, NULL, 0);
    return 1;
  default: reply_fail("simdevice-mpi-server: unknown request %s", "?");
  }
  return 0;
}

/* The next request; its payload (if any, not for DATA_SUBMIT, whose bytes
 * go straight to device memory) in *payload. */
static int next_request(struct wire_request *q, char **payload) {
  MPI_Status st;
  int src = host_rank < 0 ? MPI_ANY_SOURCE : host_rank;
  wire_recv_wait(q, sizeof *q, src, WIRE_TAG_REQUEST, host_comm, &st);
  if (host_rank < 0)
    host_rank = st.MPI_SOURCE;
  *payload = NULL;
  if (q->magic != WIRE_MAGIC)
    return -1;
  if (q->payload > 0 && q->op != WIRE_DATA_SUBMIT) {
    *payload = malloc(q->payload + 1);
    wire_recv_bytes(*payload, q->payload, host_rank, WIRE_TAG_REQUEST,
                    host_comm);
    if (*payload != NULL)
      (*payload)[q->payload] = '\0';
  }
  return 0;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  host_comm = parent != MPI_COMM_NULL ? parent : MPI_COMM_WORLD;
  if (parent != MPI_COMM_NULL)
    host_rank = 0; /* spawned from MPI_COMM_SELF: the parent group is one */
  /* Device memory the host's receives read quickly (huge_memory.c). */
  __tgt_rtl_simdevice_memory_file_maker(huge_memory_file);
  if (out_setup() != 0) {
    fprintf(stderr, "simdevice-mpi-server: cannot redirect stdout: %s\n",
            strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (;;) {
    struct wire_request q;
    char *payload;
    if (next_request(&q, &payload) != 0) {
      fprintf(stderr, "simdevice-mpi-server: a message that is not a "
                      "simdevice-mpi request from rank %d\n", host_rank);
      break;
    }
    int end = serve(&q, payload);
    if (end != 2)
      free(payload);
    if (end == 1)
      break;
  }
  if (parent != MPI_COMM_NULL)
    MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return 0;
}
