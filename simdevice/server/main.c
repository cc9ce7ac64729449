/*
 * main.c - simdevice-server: one device, one process. Started by the plugin
 * with the control memfd on fd 3 and the device-memory memfd on fd 4; maps
 * device memory at its fixed address, loads the device runtime, then serves
 * the command slot until EXIT or until the host goes away (a thread watches
 * the liveness pipe on fd 5, so that happens even while a kernel runs).
 *
 * Threads and locks: the main thread serves the main slot (every command);
 * on START_QUEUES it starts one server thread per queue slot, which serves
 * that slot from then on (only RUN), so kernels of different queues run
 * concurrently. Each slot belongs to its one thread between REQUEST and
 * DONE (see protocol.h), so no lock; `queue_threads`, the bounce area and
 * the commands other than RUN are the main thread's. The protection
 * changes, which any slot's thread may apply: protections.c. The image and
 * function tables: server.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_load.h"
#include "cpu_place.h"
#include "cpu_relax.h"
#include "server.h"

#if defined(__x86_64__)
#define SERVER_MACHINE 62 /* EM_X86_64 */
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SERVER_MACHINE 21 /* EM_PPC64 (little-endian) */
#else
#define SERVER_MACHINE 0
#endif

static struct simdev_control *ctl;
static unsigned char *bounce;
static struct server_runtime runtime;
static pid_t host_pid;
static pid_t supervisor_pid; /* our parent, as we started */
static int queue_threads; /* queue slots [0, queue_threads) have a thread */

/* Pause-loop iterations before a slot's server thread sleeps. */
#define MAIN_SLOT_SPINS 20000
#define QUEUE_SLOT_SPINS 64
/* Spins between two sched_yield()s while waiting (a power of two): when the
 * host shares this core, the host's next command (or its reading of our
 * reply) waits for them; with a core of its own it never sees them. */
#define YIELD_EVERY 64

static void futex_wait(_Atomic uint32_t *word, uint32_t expected,
                       const struct timespec *timeout) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, timeout, NULL, 0);
}

static void fail_setup(const char *fmt, const char *detail) {
  if (ctl != NULL) {
    snprintf(ctl->setup_error, sizeof ctl->setup_error, fmt, detail);
    atomic_store(&ctl->server_ready, 2);
    server_futex_wake(&ctl->server_ready);
  }
  fprintf(stderr, "simdevice-server: ");
  fprintf(stderr, fmt, detail);
  fputc('\n', stderr);
  _exit(2);
}

/* Loads the device runtime from the server's own folder (or
 * SIMDEVICE_RUNTIME), before any image; the libomptarget (and sanitizer)
 * SONAME stand-ins are loaded per image (stubs.c). */
static void load_runtime(void) {
  char dir[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n <= 0)
    fail_setup("cannot find its own folder: %s", strerror(errno));
  dir[n] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash != NULL)
    *slash = '\0';
  char path[PATH_MAX + 64];
  const char *override = environment_get()->runtime;
  if (override != NULL)
    snprintf(path, sizeof path, "%s", override);
  else
    snprintf(path, sizeof path, "%s/libomp.so.5", dir);
  void *rt = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (rt == NULL)
    fail_setup(override ? "cannot load the device runtime named by "
                          "SIMDEVICE_RUNTIME: %s"
                        : "cannot load the device runtime: %s",
               dlerror());
  /* The SONAME stand-ins: before each image that NEEDs them (stubs.c). */
  stubs_init(dir);
  runtime.call = (int (*)(void *, int, const uint64_t *))dlsym(rt, "simdev_call");
  runtime.kernel_begin = (int (*)(int32_t, int32_t))dlsym(rt, "simdev_rt_kernel_begin");
  runtime.kernel_end = (void (*)(void))dlsym(rt, "simdev_rt_kernel_end");
  runtime.kernel_prepare = (void (*)(void))dlsym(rt, "simdev_rt_kernel_prepare");
  runtime.limits = (void (*)(int32_t *, int32_t *))dlsym(rt, "simdev_rt_limits");
  runtime.set_device_num = (void (*)(int32_t))dlsym(rt, "simdev_rt_set_device_num");
  runtime.set_launch_waiter =
      (void (*)(const _Atomic uint32_t *))dlsym(rt, "simdev_rt_set_launch_waiter");
  if (runtime.call == NULL || runtime.kernel_begin == NULL ||
      runtime.kernel_end == NULL || runtime.limits == NULL ||
      runtime.set_device_num == NULL) {
    /* Only a test setup points SIMDEVICE_RUNTIME at a plain libomp. */
    if (override == NULL)
      fail_setup("the device runtime lacks simdev_call / "
                 "simdev_rt_kernel_begin / simdev_rt_kernel_end / "
                 "simdev_rt_limits / simdev_rt_set_device_num (%s)",
                 path);
    memset(&runtime, 0, sizeof runtime);
    return;
  }
  /* omp_get_device_num() in device code: the plugin's number for us. */
  runtime.set_device_num(ctl->device_id);
  runtime.limits(&ctl->max_teams, &ctl->max_threads);
  /* This thread runs the main slot's launches, for which the host thread
   * spins, then sleeps (channel.c): the runtime leaves it its CPU while it
   * spins. Queue slots' hosts may be doing anything: no waiter there. */
  if (runtime.set_launch_waiter != NULL)
    runtime.set_launch_waiter(&ctl->slot.host_sleeping);
}

/* Without the device runtime's simdev_call (SIMDEVICE_RUNTIME pointing at a
 * plain libomp): call through a 32-parameter prototype; SysV lets a callee
 * ignore the extra integer arguments. */
typedef void (*wide_kernel)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t);
static int call_without_runtime(void *fn, int nargs, const uint64_t *args) {
  uint64_t a[32] = {0};
  if (nargs < 0 || nargs > 32)
    return -1;
  memcpy(a, args, (size_t)nargs * sizeof a[0]);
  wide_kernel k;
  memcpy(&k, &fn, sizeof k);
  k(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
    a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21],
    a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31]);
  return 0;
}

/* The one parameter of a kernel that takes its parameters through a
 * `void **` (clang 23, SIMDEV_CALL_ARG_POINTERS): element i of `pointers`
 * points at args[i], which stays in the slot while the kernel runs. */
static uint64_t argument_pointers(struct simdev_slot *s, int nargs,
                                  void **pointers) {
  for (int i = 0; i < nargs && i < SIMDEV_PROTO_MAX_ARGS; i++)
    pointers[i] = &s->args[i];
  return (uint64_t)(uintptr_t)pointers;
}

static int run_kernel(struct simdev_slot *s) {
  void *fn = (void *)s->a[0];
  int nargs = (int)s->a[1];
  int32_t num_teams = (int32_t)s->a[2], thread_limit = (int32_t)s->a[3];
  /* the fixed-arity call of clang 13-22, or clang 23's single void ** */
  void *pointers[SIMDEV_PROTO_MAX_ARGS];
  uint64_t array;
  const uint64_t *args = s->args;
  int count = nargs;
  if (s->a[5] == SIMDEV_CALL_ARG_POINTERS) {
    array = argument_pointers(s, nargs, pointers);
    args = &array;
    count = 1;
  }
  int rc;
  faults_set_running_kernel(s->a[0]);
  sanitizer_kernel_begin();
  unsigned errors = memcheck_errors();
  if (runtime.call != NULL) {
    runtime.kernel_begin(num_teams, thread_limit);
    rc = runtime.call(fn, count, args);
    runtime.kernel_end();
  } else {
    rc = call_without_runtime(fn, count, args);
  }
  sanitizer_kernel_end();
  if (memcheck_errors() != errors) {
    char name[SIMDEV_KERNEL_NAME_SIZE];
    if (!images_entry_name(s->a[0], name, sizeof name))
      snprintf(name, sizeof name, "0x%llx", (unsigned long long)s->a[0]);
    memcheck_after_kernel(name, errors);
  }
  /* (serve clears the running kernel after its reply) */
  if (rc != 0) {
    char name[SIMDEV_KERNEL_NAME_SIZE];
    if (!images_entry_name(s->a[0], name, sizeof name))
      snprintf(name, sizeof name, "0x%llx", (unsigned long long)s->a[0]);
    snprintf(s->message, sizeof s->message,
             "kernel `%.256s` takes %d arguments, more than the device "
             "runtime supports",
             name, nargs);
    return -1;
  }
  return 0;
}

static void *queue_slot_thread(void *arg);

/* START_QUEUES: starts the server threads of queue slots [queue_threads,
 * want), in order, up to the first that cannot be created. All of them at
 * once, before the host's first asynchronous launch, because creating them
 * during a burst of launches took the CPUs the burst needed (on 2 cores the
 * first burst of 256 nowait regions took 2-3x the next). Fails only when no
 * slot has a thread; fewer than asked is said once on stderr. */
static int start_queue_threads(uint64_t want, char *message, size_t size) {
  if (want > SIMDEV_QUEUE_SLOTS)
    want = SIMDEV_QUEUE_SLOTS;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int err = 0;
  while (queue_threads < (int)want) {
    pthread_t t;
    err = pthread_create(&t, &attr, queue_slot_thread,
                         &ctl->queues[queue_threads]);
    if (err != 0)
      break;
    queue_threads++;
  }
  pthread_attr_destroy(&attr);
  if (err == 0)
    return 0;
  if (queue_threads == 0) {
    snprintf(message, size, "cannot start a server thread for queue slot 0: %s",
             strerror(err));
    return -1;
  }
  fprintf(stderr,
          "simdevice-server: device %d: started %d of %llu queue slot threads "
          "(%s): at most %d asynchronous kernels run at once\n",
          ctl->device_id, queue_threads, (unsigned long long)want,
          strerror(err), queue_threads);
  return 0;
}

/* The reply to the command of slot s: its status, then DONE, waking a
 * host that sleeps on the slot. */
static void slot_reply(struct simdev_slot *s, int rc) {
  s->status = rc == 0 ? SIMDEV_STATUS_OK : SIMDEV_STATUS_FAIL;
  atomic_store(&s->state, SIMDEV_SLOT_DONE);
  if (atomic_load(&s->host_sleeping))
    server_futex_wake(&s->state);
}

/* LOAD: the image staged last, or the s->a[2] bytes after the names, with
 * s->a[0] entry names (s->a[1] bytes) in the bounce area, which gets their
 * addresses back. */
static int serve_load(struct simdev_slot *s) {
  uint64_t count = s->a[0], names_len = s->a[1], elf_size = s->a[2], id = 0;
  if (names_len > ctl->bounce_size || count > ctl->bounce_size / 8) {
    snprintf(s->message, sizeof s->message, "entry names do not fit");
    return -1;
  }
  if (elf_size > ctl->bounce_size - names_len) {
    snprintf(s->message, sizeof s->message,
             "an image of %llu bytes does not fit beside %llu bytes of names",
             (unsigned long long)elf_size, (unsigned long long)names_len);
    return -1;
  }
  /* The image came with the LOAD (protocol.h), not staged before it. */
  if (elf_size > 0 && images_stage(bounce + names_len, elf_size, 1, s->message,
                                   sizeof s->message) != 0)
    return -1;
  /* Names are read from a private copy because results overwrite bounce. */
  int rc;
  char *names = malloc(names_len ? names_len : 1);
  uint64_t *addrs = calloc(count ? count : 1, sizeof *addrs);
  if (names == NULL || addrs == NULL) {
    snprintf(s->message, sizeof s->message, "no memory for entry names");
    rc = -1;
  } else {
    memcpy(names, bounce, names_len);
    rc = images_load(names, count, names_len, addrs, &id, s->message,
                     sizeof s->message);
    if (rc == 0) {
      memcpy(bounce, addrs, count * sizeof *addrs);
      s->a[0] = id;
    }
  }
  free(names);
  free(addrs);
  return rc;
}

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* RUN: the kernel of slot s, timed on a queue slot, and on the main slot
 * when the host asked (a[6] = 1: OMPT device tracing). The stamps are this
 * process's CLOCK_MONOTONIC, the clock the host's tracing reads too. */
static int serve_run(struct simdev_slot *s, int queue_slot) {
  /* Only a queue slot's host reads the run time (its hint of how long to
   * spin); on the main slot the two clock reads (vDSO, ~20 ns each) would
   * lie between the request and the reply of every synchronous launch. */
  if (!queue_slot && s->a[6] != 1)
    return run_kernel(s);
  uint64_t t0 = monotonic_ns();
  int rc = run_kernel(s);
  uint64_t t1 = monotonic_ns();
  if (queue_slot)
    s->a[4] = t1 - t0;
  s->a[6] = t0;
  s->a[7] = t1;
  return rc;
}

/* READ and WRITE: s->a[1] bytes between s->a[0] and the bounce area. */
static int serve_copy(struct simdev_slot *s) {
  if (s->a[1] > ctl->bounce_size) {
    snprintf(s->message, sizeof s->message, "copy of %llu bytes",
             (unsigned long long)s->a[1]);
    return -1;
  }
  if (s->command == SIMDEV_CMD_READ)
    memcpy(bounce, (const void *)s->a[0], s->a[1]);
  else
    memcpy((void *)s->a[0], bounce, s->a[1]);
  return 0;
}

/* FPTR_MAP: a chunk of s->a[0] rows of the function table, in the bounce
 * area. */
static int serve_fptr_map(struct simdev_slot *s) {
  if (s->a[0] > ctl->bounce_size / sizeof(struct simdev_fptr_row)) {
    snprintf(s->message, sizeof s->message, "function table chunk of %llu rows",
             (unsigned long long)s->a[0]);
    return -1;
  }
  return indirect_store((const struct simdev_fptr_row *)bounce, s->a[0],
                        s->a[1], s->a[2], s->message, sizeof s->message);
}

/* Does the command of slot s: 0, or -1 with s->message set; *leave set for
 * EXIT. */
static int serve_command(struct simdev_slot *s, int queue_slot, int *leave) {
  int rc = 0;
  switch (s->command) {
  case SIMDEV_CMD_NOP:
    break;
  case SIMDEV_CMD_STAGE:
    if (s->a[0] > ctl->bounce_size) {
      snprintf(s->message, sizeof s->message, "STAGE of %llu bytes",
               (unsigned long long)s->a[0]);
      rc = -1;
      break;
    }
    rc = images_stage(bounce, s->a[0], s->a[1] != 0, s->message,
                      sizeof s->message);
    break;
  case SIMDEV_CMD_LOAD:
    rc = serve_load(s);
    break;
  case SIMDEV_CMD_UNLOAD:
    rc = images_unload(s->a[0], s->message, sizeof s->message);
    break;
  case SIMDEV_CMD_RUN:
    rc = serve_run(s, queue_slot);
    break;
  case SIMDEV_CMD_READ:
  case SIMDEV_CMD_WRITE:
    rc = serve_copy(s);
    break;
  case SIMDEV_CMD_EXIT:
    *leave = 1;
    break;
  case SIMDEV_CMD_START_QUEUES:
    rc = start_queue_threads(s->a[0], s->message, sizeof s->message);
    s->a[0] = (uint64_t)queue_threads;
    break;
  case SIMDEV_CMD_FPTR_MAP:
    rc = serve_fptr_map(s);
    break;
  case SIMDEV_CMD_COPY_BACK:
    memcheck_copy_back(s->a[0], s->a[1]);
    break;
  case SIMDEV_CMD_NAME:
    bounce[SIMDEV_MESSAGE_SIZE - 1] = '\0';
    memcheck_name(s->a[0], s->a[1], (const char *)bounce);
    names_set(s->a[0], s->a[1], (const char *)bounce);
    break;
  case SIMDEV_CMD_CREDENTIALS:
    rc = credentials_take(s->a, bounce, supervisor_pid, s->message,
                          sizeof s->message);
    break;
  default:
    snprintf(s->message, sizeof s->message, "unknown command %u", s->command);
    rc = -1;
  }
  return rc;
}

/* Serves one command; returns 1 when the server should exit. A queue slot
 * serves RUN only: the other commands share the bounce area and the image
 * table, which belong to the main slot's thread. */
static int serve(struct simdev_slot *s, int queue_slot) {
  int leave = 0;
  cpu_place_publish(&s->server_cpu, cpu_place_here());
  s->message[0] = '\0';
  protections_apply(s, queue_slot);
  if (queue_slot && s->command != SIMDEV_CMD_RUN) {
    snprintf(s->message, sizeof s->message,
             "command %u on a queue slot (queue slots run kernels only)",
             s->command);
    slot_reply(s, -1);
    return 0;
  }
  int rc = serve_command(s, queue_slot, &leave);
  /* Read before the reply: after it the host owns the slot again and may
   * be writing its next command already. */
  const uint32_t command = s->command;
  if (command == SIMDEV_CMD_RUN || command == SIMDEV_CMD_LOAD ||
      command == SIMDEV_CMD_UNLOAD)
    output_flush(); /* device code ran: its output is written by now */
  valgrind_log_show(); /* and Valgrind's reports on it */
  slot_reply(s, rc);
  /* After the reply, while the host is busy with it: the kernel no longer
   * runs (a compare-and-swap, so not before the reply; a fault in between,
   * in output_flush, names the kernel whose output it was flushing), and
   * this thread's next launch starts with its context reset already. */
  if (command == SIMDEV_CMD_RUN) {
    faults_set_running_kernel(0);
    if (runtime.kernel_prepare != NULL)
      runtime.kernel_prepare();
  }
  return leave;
}

/* Waits for REQUEST: spins `spins` times (latency), then sleeps on the futex
 * with a timeout, leaving when the host process is gone. `sleeping` is the
 * flag the host reads to know it must wake this thread. */
static void wait_for_request(struct simdev_slot *s, _Atomic uint32_t *sleeping,
                             int spins) {
  /* More runnable threads than CPUs: a spin here takes CPU time from the
   * host thread that will send the request (cpu_load.h). */
  if (cpu_load_oversubscribed())
    spins = 0;
  for (int spin = 0; spin < spins; spin++) {
    if (atomic_load_explicit(&s->state, memory_order_acquire) ==
        SIMDEV_SLOT_REQUEST)
      return;
    /* Let runnable threads (kernels of queue slots, the host's) have the
     * CPU while waiting: on few cores a pure spin starves them. The host
     * on this very CPU gets it only by our sleeping (cpu_place.h). */
    if ((spin & (YIELD_EVERY - 1)) == 0 &&
        cpu_place_shared(&s->host_cpu, cpu_place_here()))
      break;
    cpu_relax();
    if ((spin & (YIELD_EVERY - 1)) == YIELD_EVERY - 1)
      sched_yield();
  }
  /* Asleep, this thread is on no CPU: a host that wakes it must not take
   * its last one for where it will serve (cpu_place.h). */
  cpu_place_publish(&s->server_cpu, 0);
  for (;;) {
    atomic_store(sleeping, 1);
    /* The wait is for the state read here, not read again: a request
     * posted after this read (whose wake came before the wait began) then
     * makes the wait return at once. Reading it again lost that wake, and
     * the request waited for the 1 s timeout (1 run in 2 of 30000 empty
     * launches back to back, once a launch took 1 us on the host). */
    uint32_t seen = atomic_load(&s->state);
    if (seen == SIMDEV_SLOT_REQUEST)
      break;
    struct timespec timeout = {.tv_sec = 1, .tv_nsec = 0};
    futex_wait(&s->state, seen, &timeout);
    if (atomic_load(&s->state) == SIMDEV_SLOT_REQUEST)
      break; /* (a dead host is noticed by host_watch_thread) */
  }
  atomic_store(sleeping, 0);
}

/* The server thread of one queue slot: serves it until the process ends. */
static void *queue_slot_thread(void *arg) {
  struct simdev_slot *s = arg;
  for (;;) {
    /* Hardly any spinning: queue slots carry kernels, which take long
     * enough that a futex wake costs nothing, and hundreds of spinning slot
     * threads would take the CPUs from the kernels. */
    wait_for_request(s, &s->server_sleeping, QUEUE_SLOT_SPINS);
    serve(s, 1);
  }
  return NULL;
}

/* Ends the device process (any thread). */
static _Noreturn void end_process(int status) {
  memcheck_before_exit();
  _exit(status);
}

/* Ends the process when the host is gone: the host holds the only write
 * end of the pipe on SIMDEV_FD_HOST_ALIVE, so poll returns (EOF, POLLHUP)
 * once the host exits or is killed, even while a kernel runs forever. A
 * thread of its own, since kernels may hold every other. */
static void *host_watch_thread(void *arg) {
  (void)arg;
  struct pollfd p = {.fd = SIMDEV_FD_HOST_ALIVE, .events = POLLIN};
  for (;;) {
    int n = poll(&p, 1, -1);
    if (n > 0)
      end_process(0);
    if (n < 0 && errno != EINTR && errno != EAGAIN)
      end_process(0); /* no way to watch: the fd is not there (started by hand) */
  }
  return NULL;
}

static void watch_host(void) {
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int err = pthread_create(&t, &attr, host_watch_thread, NULL);
  pthread_attr_destroy(&attr);
  if (err != 0)
    fail_setup("cannot start the thread that watches the host: %s",
               strerror(err));
}

int main(int argc, char **argv) {
  environment_read();
  environment_restore_preload();
  if (argc > 1 && strcmp(argv[1], "--supervise") == 0)
    return supervise_main();
  void *control = mmap(NULL, SIMDEV_CONTROL_BYTES, PROT_READ | PROT_WRITE,
                       MAP_SHARED, SIMDEV_FD_CONTROL, 0);
  if (control == MAP_FAILED)
    fail_setup("cannot map the control area (fd 3): %s", strerror(errno));
  ctl = control;
  if (ctl->magic != SIMDEV_PROTO_MAGIC || ctl->version != SIMDEV_PROTO_VERSION)
    fail_setup("%s", "the control area has another protocol version");
  ctl->server_machine = SERVER_MACHINE;
  ctl->server_layout = SIMDEV_PROTO_LAYOUT;
  bounce = (unsigned char *)control + ctl->bounce_offset;
  host_pid = ctl->host_pid; /* not our parent: that is the supervisor */
  supervisor_pid = getppid();
  void *mem = mmap((void *)ctl->dev_base, ctl->capacity,
                   ctl->guard ? PROT_NONE : PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED_NOREPLACE, SIMDEV_FD_MEMORY, 0);
  if (mem == MAP_FAILED)
    fail_setup("cannot map device memory at its fixed address: %s",
               strerror(errno));
  if ((uint64_t)mem != ctl->dev_base)
    fail_setup("%s", "device memory landed at another address (kernel "
                     "without MAP_FIXED_NOREPLACE)");
  protections_init(ctl, SIMDEV_FD_MEMORY); /* before server_ready */
  valgrind_log_init(ctl);
  races_init();
  close(SIMDEV_FD_MEMORY);
  close(SIMDEV_FD_CONTROL);
  timeslice_request(ctl->slice_us); /* before any thread starts */
  watch_host();
  indirect_guard_host_code(host_pid, ctl->device_id);
  output_init();
  load_runtime();
  char msg[SIMDEV_MESSAGE_SIZE];
  if (faults_install(ctl, msg, sizeof msg) != 0)
    fail_setup("%s", msg);
  sanitizer_init();
  atomic_store(&ctl->server_ready, 1);
  server_futex_wake(&ctl->server_ready);
  struct simdev_slot *s = &ctl->slot;
  for (;;) {
    wait_for_request(s, &ctl->server_sleeping, MAIN_SLOT_SPINS);
    if (serve(s, 0))
      break;
  }
  images_unload_all();
  output_flush();
  valgrind_log_show();
  end_process(0);
}
