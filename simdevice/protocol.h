/*
 * protocol.h - the command area shared by the simdevice plugin (host side)
 * and simdevice-server (the device process). Both sides include this file;
 * the layout is the protocol.
 *
 * Two shared mappings per device, both memfds the host creates and the server
 * inherits:
 *   fd SIMDEV_FD_CONTROL: struct simdev_control (header, fault record, one
 *       command slot) followed by the bounce area (SIMDEV_BOUNCE_SIZE bytes)
 *       that carries images, entry names and copies of image globals.
 *   fd SIMDEV_FD_MEMORY: device memory. The server maps it at the fixed
 *       address dev_base, so device pointers are real addresses there; the
 *       host maps it elsewhere and copies with memcpy.
 *
 * Handshake of the slot (futex word `state`):
 *   host: fill cmd/operands, state = REQUEST, wake the server if it sleeps;
 *   server: run it, fill status/results, state = DONE, wake the host if it
 *       sleeps; host reads the results and sets state = IDLE.
 *   A fault in the device process sets state = FAULT before it exits.
 * Each side spins briefly, then announces that it sleeps (the *_sleeping
 * flags) and futex-waits, so the other side only pays a futex_wake syscall
 * when someone really sleeps. Locking: one host thread at a time owns the
 * slot (the plugin's per-device channel lock); the server has one thread
 * serving it. The queue slots (`queues`, below) follow the same handshake,
 * each with its own server thread, so kernels of different queues run at
 * the same time.
 */
#ifndef SIMDEVICE_PROTOCOL_H
#define SIMDEVICE_PROTOCOL_H

#include <stdint.h>

#define SIMDEV_PROTO_MAGIC 0x53494d44u /* "SIMD" */
#define SIMDEV_PROTO_VERSION 16

/* File descriptors the server finds already open at start. */
#define SIMDEV_FD_CONTROL 3
#define SIMDEV_FD_MEMORY 4
/* The read end of a pipe whose only write end the host holds: it reads EOF
 * when the host process is gone (even by SIGKILL), and the server exits. */
#define SIMDEV_FD_HOST_ALIVE 5
/* The supervisor's only: the write end of a pipe whose read end the host
 * holds (not passed on to the device process). EOF there means the
 * supervisor is gone, so its last writes to the control area (exit_status,
 * server_exited) are done: after that the host may reuse the area. */
#define SIMDEV_FD_SUPERVISOR 6
/* SIMDEVICE_VALGRIND: the file Valgrind writes its reports to (its
 * --log-fd), a memfd the host created; the server reads it with pread
 * (simdev_control.valgrind_log), the supervisor (which keeps it too)
 * reads the rest once the process has ended. Not open otherwise. */
#define SIMDEV_FD_VALGRIND_LOG 7

/* Largest number of kernel parameters (matches SIMDEV_MAX_ARGS of the
 * device runtime, simdevice/runtime/simdev_rt.h). */
#define SIMDEV_PROTO_MAX_ARGS 256
/* Protection changes that travel with one command. */
#define SIMDEV_PROTO_MAX_PROT 64
/* Bytes of the bounce area after the control block. */
#define SIMDEV_BOUNCE_SIZE (1u << 20)
#define SIMDEV_MESSAGE_SIZE 512
#define SIMDEV_KERNEL_NAME_SIZE 256

/* Queue slots: kernels launched asynchronously (run_target_team_region_async)
 * each take one, so at most this many kernels of one device are in flight at
 * once; a queue whose kernel finds every slot busy waits, host side, for one
 * to free up. */
#define SIMDEV_QUEUE_SLOTS 256

/* Device memory lives in a 1 TiB slot of the address space, chosen by the
 * plugin (plugin/address_range.c: 0x600000000000 + d TiB for device d unless
 * a sanitizer owns that range) and handed over in the control area. */
#define SIMDEV_DEVICE_STRIDE (1ull << 40)

enum simdev_slot_state {
  SIMDEV_SLOT_IDLE = 0,    /* free for the host to fill */
  SIMDEV_SLOT_REQUEST = 1, /* host wrote a command */
  SIMDEV_SLOT_DONE = 2,    /* server wrote the reply */
  SIMDEV_SLOT_FAULT = 3,   /* the device process faulted and is exiting */
};

enum simdev_command {
  SIMDEV_CMD_NOP = 0,     /* only applies the protection changes */
  SIMDEV_CMD_STAGE = 1,   /* append bounce[0, a[0]) to the staged image; a[1]=1 starts a new one */
  SIMDEV_CMD_LOAD = 2,    /* dlopen the staged image; bounce holds a[0] names (NUL-separated,
                             a[1] bytes), then, when a[2] > 0, the whole image (a[2] bytes;
                             no STAGE before); reply: a[0] = image id, bounce = u64
                             address per name */
  SIMDEV_CMD_UNLOAD = 3,  /* dlclose image a[0] */
  SIMDEV_CMD_RUN = 4,     /* call a[0] with args[0, a[1]); a[2]=num_teams, a[3]=thread_limit;
                             a[5] = how (enum simdev_call);
                             reply on a queue slot: a[4] = nanoseconds the kernel ran,
                             a[6], a[7] = CLOCK_MONOTONIC ns when it started and ended;
                             the main slot leaves a[4] as it was and stamps a[6], a[7]
                             only when the request's a[6] is 1 (OMPT tracing) */
  SIMDEV_CMD_READ = 5,    /* copy a[1] bytes at device address a[0] into the bounce */
  SIMDEV_CMD_WRITE = 6,   /* copy a[1] bytes from the bounce to device address a[0] */
  SIMDEV_CMD_EXIT = 7,    /* reply, then exit(0) */
  SIMDEV_CMD_FPTR_MAP = 8, /* declare target indirect table: bounce holds a[0] rows
                              (struct simdev_fptr_row) to store at row a[1] of a new
                              table of a[2] rows, installed (replacing the old one)
                              by the chunk that completes it; a[2] = 0 clears it */
  SIMDEV_CMD_NAME = 10, /* memcheck: the allocation at offset a[0] (a[1]
                           bytes) holds the variable the bounce describes
                           (NUL-terminated text) */
  SIMDEV_CMD_COPY_BACK = 11, /* memcheck: a[1] bytes at offset a[0] go back
                                to the host; say so if none was written */
  SIMDEV_CMD_START_QUEUES = 9, /* start the server threads of queue slots [0, a[0]);
                                  reply a[0] = how many slots, from slot 0, have one
                                  (fails only when slot 0 has none) */
  SIMDEV_CMD_CREDENTIALS = 12, /* take the program's credentials: a[0..2] real,
                                  effective, saved uid, a[3..5] the same gids,
                                  a[6] supplementary groups (u32 each in the
                                  bounce); reply a[0] effective, a[1] permitted,
                                  a[2] inheritable capabilities (64 bits each) */
};

/* One row of the host -> device function table (SIMDEV_CMD_FPTR_MAP),
 * sorted by host address, no duplicate host addresses. */
struct simdev_fptr_row {
  uint64_t host;
  uint64_t device;
};

/* Status in the reply: 0 success, else failure with `message`. */
#define SIMDEV_STATUS_OK 0
#define SIMDEV_STATUS_FAIL 1

/* How the server makes device memory inaccessible (simdev_control.guard_mode;
 * server/protections.c). */
enum simdev_guard_mode {
  SIMDEV_GUARD_OFF = 0,      /* no guard pages (guard = 0) */
  SIMDEV_GUARD_MPROTECT = 1, /* mprotect: two memory mappings per live
                                guarded object, up to vm.max_map_count */
  SIMDEV_GUARD_REGIONS = 2,  /* Linux guard regions (madvise
                                MADV_GUARD_INSTALL, 6.15+ on shared memory):
                                no memory mapping per object */
};

/* One change of protection in the device process's view of device memory:
 * access 0 or 1 (page aligned); for a device process that runs ASan
 * (device code built with -fsanitize=address), which bytes ASan lets device
 * code touch; under memcheck (SIMDEVICE_VALGRIND=memcheck,
 * simdev_control.valgrind_tool 1), memcheck's view of the bytes. ASan and
 * memcheck changes are byte-exact, change no page protection, and travel in
 * the same queue as the protection changes, so they reach the server in
 * order with them and before the next kernel (server/memcheck.c turns the
 * marks into memcheck client requests). */
enum simdev_access {
  SIMDEV_ACCESS_NONE = 0,          /* no access */
  SIMDEV_ACCESS_READ_WRITE = 1,    /* read and write */
  SIMDEV_ACCESS_ASAN_POISON = 2,   /* ASan reports any use */
  SIMDEV_ACCESS_ASAN_UNPOISON = 3, /* ASan lets device code use them */
  SIMDEV_MARK_UNDEFINED = 4,       /* memcheck: allocated, nothing written yet */
  SIMDEV_MARK_DEFINED = 5,         /* memcheck: written by a copy from the host */
  SIMDEV_MARK_NOACCESS = 6,        /* memcheck: freed, or outside every allocation */
};
struct simdev_prot_change {
  uint64_t offset; /* from dev_base (page aligned for access 0 and 1) */
  uint64_t length; /* bytes (a page multiple for access 0 and 1) */
  uint32_t access; /* enum simdev_access */
  uint32_t pad;
};

/* Changes the host logs for the server to apply on its own (a ring): a
 * kernel posted on a queue slot needs every change logged before it
 * (simdev_slot.prot_upto), and the thread that serves it applies what is
 * missing, in order, under the server's log lock. Posting a kernel after an
 * allocation then costs no round trip through the main slot. The main slot
 * applies the whole log before its own prot[]; the host carries changes in
 * prot[] only when the log is full, so log entries are always older. */
#define SIMDEV_PROT_LOG_SIZE 4096
struct simdev_prot_log {
  _Atomic uint64_t head;    /* host (under its channel lock): changes logged */
  _Atomic uint64_t applied; /* server (under its log lock): changes applied */
  struct simdev_prot_change ring[SIMDEV_PROT_LOG_SIZE]; /* change n at n % size */
};

/* Fault kinds (the same values as __tgt_rtl_error.fault_kind). */
enum simdev_fault_kind {
  SIMDEV_FAULT_NONE = 0,
  SIMDEV_FAULT_READ = 1,
  SIMDEV_FAULT_WRITE = 2,
  SIMDEV_FAULT_EXEC = 3,
};

/* Written by the server's signal handler before it exits. */
struct simdev_fault_record {
  uint32_t valid;     /* 1 once the fields below are written */
  int32_t signal;     /* SIGSEGV, SIGBUS, SIGILL or SIGFPE */
  uint64_t address;   /* si_addr */
  uint64_t kernel;    /* device address of the running kernel, 0 if none */
  int32_t kind;       /* enum simdev_fault_kind */
  int32_t in_kernel;  /* 1 when a kernel was running */
  int32_t sent;       /* 1: sent by a process (kill, raise: si_code <= 0),
                         not raised by an instruction; address is then 0 */
  int32_t sender_pid; /* with `sent`: si_pid, the sender */
  int32_t sanitizer;  /* 1: AddressSanitizer reported a bad access at
                         `address` (signal 0), and its report is on stderr */
  int32_t pad;
  char kernel_name[SIMDEV_KERNEL_NAME_SIZE]; /* host entry name, "" if unknown */
  /* With `sanitizer`: "KIND at FILE:LINE:COL" from the report's SUMMARY
   * line (server/sanitizer.c), "" if none */
  char sanitizer_summary[256];
};

/* Each slot starts a 64-byte cache line (the control area is page aligned):
 * the handshake line is shared with nothing else, queue slots included. */
/* How RUN calls a kernel (a[5]): with one 64-bit parameter per args[i]
 * (clang 13-22), or (clang 23, KernelArgs version 4) with one `void **`
 * whose element i points at args[i]. */
enum simdev_call {
  SIMDEV_CALL_POSITIONAL = 0,
  SIMDEV_CALL_ARG_POINTERS = 1,
};

struct simdev_slot {
  _Alignas(64) _Atomic uint32_t state; /* enum simdev_slot_state; the futex word */
  _Atomic uint32_t host_sleeping; /* 1 while the host futex-waits on state */
  uint32_t command;               /* enum simdev_command */
  int32_t status;                 /* reply: SIMDEV_STATUS_* */
  uint32_t prot_count;            /* valid entries in prot[] */
  _Atomic uint32_t server_sleeping; /* queue slots: 1 while the slot's server
                                       thread futex-waits on state (the main
                                       slot uses simdev_control's flag) */
  /* The operands right after the handshake words: a RUN's a[0..4] share
   * the 64-byte line of `state`, so the server's read of `state` brings
   * them along, and a kernel's first parameters follow in the next line
   * (each line the host writes is one more transfer between the cores;
   * prot[] is only filled when protections changed). */
  uint64_t a[8];                          /* command operands / results */
  uint64_t prot_upto;             /* queue slots: apply the log this far first */
  uint64_t args[SIMDEV_PROTO_MAX_ARGS];   /* kernel parameters (RUN) */
  struct simdev_prot_change prot[SIMDEV_PROTO_MAX_PROT]; /* applied first */
  char message[SIMDEV_MESSAGE_SIZE];      /* reply: why it failed */
  /* Where each side last ran (the CPU number + 1; 0: not said, or the
   * server thread sleeps), each written by its side only when it changed.
   * A side that waits for the other on the CPU the other runs on sleeps at
   * once instead of spinning: there, its spinning is the other side's
   * delay. A line of their own: the hot first line keeps its operands. */
  _Alignas(64) _Atomic uint32_t host_cpu;
  _Atomic uint32_t server_cpu;
};

struct simdev_control {
  uint32_t magic;      /* SIMDEV_PROTO_MAGIC, written by the host */
  uint32_t version;    /* SIMDEV_PROTO_VERSION */
  int32_t device_id;   /* which device this process is */
  uint32_t guard;      /* 1: device memory starts inaccessible (guard pages) */
  uint64_t dev_base;   /* where the server maps device memory */
  uint64_t capacity;   /* bytes of device memory */
  uint64_t bounce_offset; /* bounce area offset from the start of this struct */
  uint64_t bounce_size;   /* SIMDEV_BOUNCE_SIZE */
  /* The handshake, written by the server before server_ready: the machine
   * it runs (ELF e_machine; a ppc64le device process may serve an x86-64
   * host) and SIMDEV_PROTO_LAYOUT as it was compiled; the host refuses a
   * process whose either differs from what it expects. Both sit before any
   * field whose offset could differ. */
  uint32_t server_machine;
  uint32_t server_layout;
  _Atomic uint32_t server_ready;    /* server: 1 once it serves commands, 2 if setup failed */
  _Atomic uint32_t server_sleeping; /* 1 while the server futex-waits on state */
  _Atomic uint32_t guards_disabled; /* server: 1 once changing protections
                                       failed (in mprotect mode: too many
                                       memory mappings, vm.max_map_count)
                                       and it made all device memory
                                       accessible */
  uint32_t guard_mode; /* server, before server_ready: enum simdev_guard_mode */
  /* The time slice the server asks the kernel's scheduler for, for all its
   * threads (SIMDEVICE_SLICE_US; 0: the kernel's default). */
  uint32_t slice_us;
  /* host: the Valgrind tool the server runs under (SIMDEVICE_VALGRIND): 0
   * none, 1 memcheck (device bytes carry marks: the server starts device
   * memory NOACCESS and applies them), 2 helgrind, 3 drd */
  uint32_t valgrind_tool;
  /* host: 1 when the tool writes its reports to SIMDEV_FD_VALGRIND_LOG, a
   * file the server copies to its stderr as it goes (server/valgrind_log.c)
   * and the supervisor (else the host) copies the rest of once the process
   * has ended; 0 when they go straight to stderr */
  uint32_t valgrind_log;
  /* server, then supervisor: the bytes of that file copied to stderr */
  _Atomic uint64_t valgrind_log_shown;
  int32_t max_teams;   /* server, before server_ready: the device runtime's */
  int32_t max_threads; /* caps in force (0: unknown, a plain libomp) */
  char setup_error[SIMDEV_MESSAGE_SIZE]; /* server: why setup failed */
  /* The device process is not the host's child (a program that waits for
   * all its children must not find it): a supervisor process started from
   * the same executable (`simdevice-server --supervise`) forks it, waits for
   * it and records how it ended. */
  int32_t host_pid;                /* host: its own pid */
  _Atomic int32_t server_pid;      /* supervisor: the device process's pid */
  _Atomic uint32_t server_exited;  /* supervisor: 1 once exit_status is set */
  int32_t exit_status;             /* supervisor: the wait status */
  struct simdev_fault_record fault;
  struct simdev_prot_log prot_log;
  struct simdev_slot slot;
  /* Queue slots (asynchronous kernels). The host owns a slot from claiming
   * it (host-side bitmap) until it reads DONE and sets IDLE; it posts only
   * SIMDEV_CMD_RUN there, with no protection changes in prot[] (they go
   * through prot_log, up to prot_upto). A server thread per slot serves it,
   * started by SIMDEV_CMD_START_QUEUES, which the host sends before its
   * first post to a process; it posts only to the slots that reply names. */
  struct simdev_slot queues[SIMDEV_QUEUE_SLOTS];
};

/* The shape of the shared area as one compiler laid it out: sizes and
 * offsets that differ between ABIs (long, alignment, padding) change it. */
#define SIMDEV_PROTO_LAYOUT                                                    \
  ((uint32_t)(sizeof(struct simdev_control) ^                                 \
              ((uint64_t)sizeof(struct simdev_slot) << 12) ^                  \
              ((uint64_t)__builtin_offsetof(struct simdev_control, slot) << 7) ^ \
              ((uint64_t)sizeof(long) << 28) ^                                \
              ((uint64_t)_Alignof(uint64_t) << 24)))

/* Total bytes of the control mapping. */
#define SIMDEV_CONTROL_BYTES                                                   \
  ((((uint64_t)sizeof(struct simdev_control) + 4095u) & ~4095ull) +           \
   SIMDEV_BOUNCE_SIZE)
#define SIMDEV_BOUNCE_OFFSET                                                   \
  (((uint64_t)sizeof(struct simdev_control) + 4095u) & ~4095ull)

#endif /* SIMDEVICE_PROTOCOL_H */
