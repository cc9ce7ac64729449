/*
 * plugin_internal.h - internals of the simdevice plugin
 * (libomptarget.rtl.simdevice.so), shared by its files.
 *
 * Locks (always taken in this order):
 *   sim_device.channel_lock  the device process (pid, death state, restart),
 *                            the command slot, the loaded images, the kernel
 *                            and global tables of the device, its indirect
 *                            table, the protection log's head.
 *   slot_pools[d].lock       which queue slots of device d are claimed
 *                            (queues.c).
 *   device_allocator.lock    the allocator's blocks and the queue of
 *                            protection changes not yet sent to the process.
 * Functions documented "under channel_lock" start with
 * LOCK_ASSERT_HELD(&dev->channel_lock) (lock_check.h: debug builds abort
 * naming the function when the caller does not hold it). Transfers inside
 * device memory take no lock: they are memcpy into the host view of the
 * shared mapping.
 */
#ifndef SIMDEVICE_PLUGIN_INTERNAL_H
#define SIMDEVICE_PLUGIN_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "../protocol.h"
#include "omptarget.h"
#include "omptarget_plugin.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The device process writes device memory behind Valgrind's back; tell
 * memcheck the bytes are defined before they are copied to the host (a
 * no-op outside Valgrind). Otherwise a buffer reused after an uninitialised
 * struct padding was copied in would report stale "uninitialised" bytes. */
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define DEVICE_BYTES_DEFINED(p, n) VALGRIND_MAKE_MEM_DEFINED(p, n)
#else
#define DEVICE_BYTES_DEFINED(p, n) ((void)0)
#endif
#define PLUGIN_MAX_DEVICES 16
/* Guard pages and shared (USM) blocks are whole pages of the system's size:
 * 4 KiB on x86-64, usually 64 KiB on POWER. */
#define PAGE_BYTES (plugin_settings()->page_bytes)

/* ------------------------------------------------------ the device machine
 * One source, two plugins. Plain, this is libomptarget.rtl.simdevice.so: the
 * device process runs the host's machine. Built with
 * -DSIMDEVICE_DEVICE_PPC64LE it is libomptarget.rtl.simdevice-ppc64le.so:
 * its device processes are ppc64le builds (simdevice-ppc64le/ beside the
 * plugin), run under qemu-ppc64le unless the host runs them (launcher.c). */
#if defined(SIMDEVICE_DEVICE_PPC64LE)
#define DEVICE_MACHINE 21 /* EM_PPC64, little-endian, ELFv2 */
#define DEVICE_MACHINE_NAME "ppc64le"
#define DEVICE_SERVER_DIR "simdevice-ppc64le"
#define DEVICE_COUNT_VAR "SIMDEVICE_PPC64LE_NUM_DEVICES"
#define DEVICE_SERVER_VAR "SIMDEVICE_PPC64LE_SERVER"
#define DEVICE_SLOT_OFFSET 8 /* first memory slot: clear of the x86 devices' */
#elif defined(__x86_64__)
#define DEVICE_MACHINE 62 /* EM_X86_64 */
#define DEVICE_MACHINE_NAME "x86-64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DEVICE_MACHINE 21
#define DEVICE_MACHINE_NAME "ppc64le"
#else
#error "simdevice runs device code on the host: x86-64 or ppc64le only"
#endif
/* 1: the device machine is not the host's (the supervisor is then the
 * host's server, simdevice/simdevice-server beside the plugin). */
#if defined(SIMDEVICE_DEVICE_PPC64LE) &&                                      \
    !(defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define DEVICE_FOREIGN 1
#else
#define DEVICE_FOREIGN 0
#endif
/* How the plugin names itself in messages. */
#if DEVICE_FOREIGN
#define PLUGIN_TAG "simdevice-" DEVICE_MACHINE_NAME
#else
#define PLUGIN_TAG "simdevice"
#endif
#ifndef DEVICE_SERVER_DIR
#define DEVICE_SERVER_DIR "simdevice"
#define DEVICE_COUNT_VAR "SIMDEVICE_NUM_DEVICES"
#define DEVICE_SERVER_VAR "SIMDEVICE_SERVER"
#define DEVICE_SLOT_OFFSET 0
#endif

/* SIMDEVICE_VALGRIND: the Valgrind tool each device process runs under. */
enum valgrind_tool {
  VALGRIND_NONE = 0,
  VALGRIND_MEMCHECK = 1,
  VALGRIND_HELGRIND = 2,
  VALGRIND_DRD = 3,
};
/* The exit status a device process gets from Valgrind when the tool
 * reported errors (--error-exitcode): process.c says so at its end. */
#define VALGRIND_ERROR_EXIT 86

/* -------------------------------------------------------------- settings.c
 * The environment, read and validated once (bad values: a warning and the
 * default); see simdevice/README.md. Strings are NULL when unset. */
struct plugin_settings {
  int num_devices;             /* SIMDEVICE_NUM_DEVICES, 0..16 */
  uint64_t memory;             /* SIMDEVICE_MEMORY, bytes per device */
  int guard;                   /* SIMDEVICE_GUARD */
  const char *server;          /* SIMDEVICE_SERVER (DEVICE_SERVER_VAR) */
  const char *wrapper;         /* SIMDEVICE_WRAPPER */
  int valgrind;                /* SIMDEVICE_VALGRIND: enum valgrind_tool */
  int host_under_valgrind;     /* this process runs under Valgrind */
  const char *search_path;     /* PATH, for the wrapper's command */
  const char *faults_simtarget; /* SIMTARGET_FAULTS */
  const char *faults_simdevice; /* SIMDEVICE_FAULTS */
  const char *fault_counts;    /* SIMTARGET_FAULT_COUNTS */
  unsigned timeout_s;          /* SIMDEVICE_TIMEOUT, 0: kernels never time out */
  int early_start;             /* SIMDEVICE_EARLY_START: device 0 starts when
                                  the plugin loads (plugin.c) */
  unsigned slice_us;           /* SIMDEVICE_SLICE_US: the device process's
                                  scheduler time slice, 0: the kernel's */
  uint64_t page_bytes;         /* sysconf(_SC_PAGESIZE), not a variable */
  const char *qemu;            /* SIMDEVICE_QEMU (ppc64le plugin) */
  const char *sysroot;         /* SIMDEVICE_PPC64LE_SYSROOT (ppc64le plugin) */
  const char *sanitizer_runtime; /* SIMDEVICE_SANITIZER_RUNTIME (sanitizer.c) */
};
HIDDEN const struct plugin_settings *plugin_settings(void);
/* Bytes of address space RLIMIT_AS leaves (UINT64_MAX: no limit). */
HIDDEN uint64_t address_space_left(void);

/* ---------------------------------------------------------------- plugin.c
 * OMPT device tracing: the times array __tgt_rtl_time_next_op armed for this
 * thread's next launch or queued copy on device id (NULL: none; disarms it
 * either way);
 * the start and end a RUN reply on slot s carries into it; and the
 * synchronous launch (plugin_run_sync) takes those times (NULL: untimed). */
HIDDEN uint64_t *plugin_take_timing(int32_t id);
HIDDEN void plugin_store_times(const struct simdev_slot *s, uint64_t *times);

/* ---------------------------------------------------------------- errors.c
 * The cause of this thread's last failure, returned by get_last_error. */
HIDDEN void plugin_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
HIDDEN void plugin_error_fault(uint64_t addr, int kind, int device_lost,
                               const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
HIDDEN void plugin_error_take(__tgt_rtl_error *out);
/* This thread's last error, kept (record.c). */
HIDDEN void plugin_error_peek(__tgt_rtl_error *out);

/* ------------------------------------------------------------- allocator.c
 * First fit over size-class bins, with coalescing of address neighbours;
 * blocks are found by address through a hash table. Offsets are relative to
 * the start of device memory. With guard pages, every block ends right before
 * an inaccessible page and freed pages are made inaccessible; the needed
 * protection changes queue up until the channel sends them (a change that
 * undoes one still queued cancels it: free and reuse of the same block
 * between two commands costs the device process no system call). */
struct alloc_block;
struct prot_queue {
  struct simdev_prot_change *items; /* pending: items[head .. head + count) */
  size_t head, count, cap;
};
/* A descriptor as the plugin opened it (inherit.c). */
struct fd_id {
  int fd;
  uint64_t dev, ino;
};
HIDDEN void fd_remember(struct fd_id *id, int fd);
HIDDEN int fd_still_ours(const struct fd_id *id);
HIDDEN void fd_close_if_ours(int *fd, const struct fd_id *id);

struct device_allocator {
  pthread_mutex_t lock;
  uint64_t base;     /* device address of offset 0, for messages */
  uint64_t capacity; /* bytes */
  uint64_t unit;     /* allocation granule: a page with guards, else 64 */
  int guard;
  int asan; /* the device process runs ASan: tell it each block's bytes */
  int marks; /* SIMDEVICE_VALGRIND=memcheck: queue memcheck marks (protocol.h) */
  struct alloc_block *bins[64];     /* free blocks by floor(log2(units)) */
  struct alloc_block *first;        /* every block, in address order */
  struct alloc_block **table;       /* used blocks by offset (open addressing) */
  size_t table_cap, table_used;
  struct alloc_block *live_root;    /* used blocks by offset, ordered (treap):
                                       the block holding an inner offset */
  uint64_t treap_seed;              /* priorities of live_root's nodes */
  uint64_t bytes_used;
  struct prot_queue pending;
  /* freed blocks kept inaccessible, oldest first (allocator.c) */
  struct alloc_block *quarantine_head, *quarantine_tail;
  uint64_t quarantine_bytes;  /* of quarantined blocks with memory */
  size_t quarantine_blocks;
  /* the oldest quarantined block that may still hold memory: every older
   * one has given its memory back (NULL: all have) */
  struct alloc_block *quarantine_unpunched;
  /* the memfd behind the range: freed memory is given back to the system
   * through it (FALLOC_FL_PUNCH_HOLE), while the descriptor number is still
   * that file (user code may close it and open its own under the number);
   * fd -1: none, or the kernel refused */
  struct fd_id backing;
  /* the quarantined blocks that mirrored a host object, by its address:
   * a new mapping of the same object takes its block back (NULL until the
   * first such free; without it, blocks are just not taken back) */
  struct alloc_block **by_host;
};
HIDDEN int allocator_init(struct device_allocator *a, uint64_t base,
                          uint64_t capacity, int guard);
HIDDEN void allocator_destroy(struct device_allocator *a);
/* Returns 0 and the user offset, or -1 (out of memory / no memory for
 * bookkeeping; the reason is in plugin_error). `host` is the address of the
 * host object the block mirrors (data_alloc's hst_ptr), or 0 for memory
 * that must be distinct (omp_target_alloc, private copies, host/shared
 * memory): a block freed for the same host object and of the same size is
 * taken back from the quarantine, no other. */
HIDDEN int allocator_alloc(struct device_allocator *a, uint64_t size,
                           uint64_t host, uint64_t *offset_out);
/* Returns 0, or -1 when `offset` is not the start of a live allocation. */
HIDDEN int allocator_free(struct device_allocator *a, uint64_t offset);
/* Moves up to `max` queued protection changes to `out`; returns how many. */
HIDDEN size_t allocator_take_protections(struct device_allocator *a,
                                         struct simdev_prot_change *out,
                                         size_t max);
/* After a restart: forget the queue and queue access to every live block. */
/* SIMDEVICE_VALGRIND=memcheck: queues the memcheck mark `mark` (enum
 * simdev_mark) on [offset, offset + length) for the next command; 0, or -1
 * with the error set. Nothing without marks. */
HIDDEN int allocator_mark(struct device_allocator *a, uint64_t offset,
                          uint64_t length, uint32_t mark);
HIDDEN int allocator_requeue_live(struct device_allocator *a);
/* The live allocation holding `offset`: 0 with its user offset and size, or
 * -1 when no live allocation holds it (freed, never allocated, padding or a
 * guard page). */
HIDDEN int allocator_find_live(struct device_allocator *a, uint64_t offset,
                               uint64_t *begin_out, uint64_t *size_out);
/* Calls fn(ctx, user offset, size) for every live allocation in address
 * order, stopping at the first nonzero return, which it returns. */
HIDDEN int allocator_each_live(struct device_allocator *a,
                               int (*fn)(void *ctx, uint64_t offset,
                                         uint64_t size),
                               void *ctx);
/* An allocation of `size` bytes at user offset `offset` exactly, as
 * allocator_alloc would have placed it (simtarget-replay re-creates a
 * recorded device's blocks): 0, or -1 when that range is not free. */
HIDDEN int allocator_alloc_at(struct device_allocator *a, uint64_t offset,
                              uint64_t size);
/* Words about a device-memory offset, for fault messages. */
HIDDEN void allocator_describe(struct device_allocator *a, uint64_t offset,
                               char *buf, size_t len);

/* ------------------------------------------------------------ sanitizer.c */
enum device_sanitizer {
  DEVICE_SAN_NONE = 0,
  DEVICE_SAN_ADDRESS = 1,
  DEVICE_SAN_THREAD = 2,
  DEVICE_SAN_UNDEFINED = 4,
};
/* "address", "thread", "undefined" or "none". */
HIDDEN const char *sanitizer_name(int kind);
/* The sanitizer an image's device code was built with (its imports), and
 * the major version of the clang that built it (0: unknown). */
HIDDEN int sanitizer_scan_image(const void *elf, size_t size, int *major);
/* Notes that devices started from now on run the image's sanitizer and
 * finds its runtime: 0, or -1 with the error set (no runtime found). */
HIDDEN int sanitizer_note_image(const void *elf, size_t size);
/* The sanitizer new device processes run (DEVICE_SAN_*), and its runtime's
 * path in `path` ("" for none; path may be NULL). */
HIDDEN int sanitizer_wanted(char *path, size_t len);
/* The address ranges [begin, end) that sanitizer `kind`'s runtime owns in
 * the device process; how many (at most max). */
HIDDEN size_t sanitizer_reserved_ranges(int kind, uint64_t (*out)[2],
                                        size_t max);
/* The environment of a device process that preloads `runtime` (see
 * sanitizer.c), or NULL without host memory. */
HIDDEN char **sanitizer_environment(const char *runtime);

/* --------------------------------------------------------- address_range.c */
/* Chooses dev->dev_base (a free range of `capacity` bytes that no sanitizer
 * uses; dev->wanted_base alone when set) and reserves it inaccessible in the
 * host (dev->reservation). Returns 0, or -1 with the reason in plugin_error. */
struct sim_device;
HIDDEN int address_range_reserve(struct sim_device *dev, uint64_t capacity);

/* -------------------------------------------------------------- elfimage.c */
/* Finds the ELF payload of an image (unwrapping an OffloadBinary, with
 * common/offload_image.h) and checks that it is a 64-bit little-endian
 * shared object for the host's machine and OS ABI (ELFv2 on ppc64le).
 * Returns 0, or -1 with the reason in `why`. */
HIDDEN int elfimage_check(const __tgt_device_image *image, const void **elf,
                          size_t *size, char *why, size_t why_len);

/* ------------------------------------------------------------- device.c */
struct plugin_image;

struct kernel_ref {
  uint64_t addr;    /* device address */
  const char *name; /* host entry name (owned by its plugin_image) */
  unsigned clang_major; /* the clang that made its image (.comment), 0 if
                           the image does not say */
};

/* What a device process inherits from the program (inherit.c). */
#define INHERIT_MAX_GROUPS 64
#define INHERIT_LIMITS 16
/* The credentials a kernel runs with: the program's when it offloads. */
struct credentials {
  uid_t uid[3]; /* real, effective, saved */
  gid_t gid[3];
  int ngroups;
  gid_t groups[INHERIT_MAX_GROUPS];
  uint32_t caps[6]; /* capget, version 3: two __user_cap_data_struct */
  /* When they were read (not compared): libomptarget's count of the
   * program's id-changing calls, and CLOCK_MONOTONIC. */
  uint64_t generation;
  int64_t read_ns;
};
HIDDEN void credentials_capture(struct credentials *c);
HIDDEN int credentials_equal(const struct credentials *a,
                             const struct credentials *b);
/* Whether the process's credentials differ from `then` (then `now` holds
 * them; else `then` is marked read now). No system call while libomptarget
 * counts no id-changing call since `then` was read and that was under
 * 10 ms ago; else two (the ids) for a process without capabilities, which
 * can change nothing else, and four otherwise. */
HIDDEN int credentials_changed(struct credentials *then,
                               struct credentials *now);
struct inherited_state {
  struct credentials cred;
  unsigned umask;
  uint64_t cwd[2], root[2]; /* st_dev + 1, st_ino */
  struct rlimit limits[INHERIT_LIMITS];
  uint64_t env_hash;
  uint64_t ignored; /* signals 1..64 set to SIG_IGN */
  sigset_t mask;
  uint64_t stdio[3][2];
};
HIDDEN void inherit_capture(struct inherited_state *s);
/* What of the program's state differs from `then`, or NULL. Not its
 * credentials: the device process takes those itself before each kernel
 * (process_follow_credentials), so a device started as root keeps working
 * after the program drops to a user that could not start one (its files
 * under a folder only root can enter). */
HIDDEN const char *inherit_differs(const struct inherited_state *then);

struct sim_device {
  int id;
  _Atomic int initialized;      /* memory and first process set up */
  int launched;                 /* memory set up and the first process on
                                   its way (early start), not awaited yet */
  char launch_error[SIMDEV_MESSAGE_SIZE]; /* why the early start failed
                                   (said at init_device), or "" */
  pthread_mutex_t channel_lock; /* see the top of this file */
  pthread_rwlock_t record_gate; /* SIMTARGET_RECORD: held for writing over a
                                   recorded launch (record.c) */
  /* memory */
  uint64_t dev_base, capacity;
  uint64_t wanted_base; /* simtarget-replay's recorded base, 0: chosen */
  unsigned char *host_view; /* host mapping of the memory memfd */
  void *reservation;        /* PROT_NONE at dev_base in the host */
  int mem_fd, ctl_fd;
  struct fd_id mem_id, ctl_id, alive_id, supervisor_fd_id, supervisor_pidfd_id, pidfd_id;
  int early;                     /* started before main (plugin.c) */
  int sanitizer;                 /* DEVICE_SAN_* its process runs */
  char sanitizer_runtime[PATH_MAX]; /* that runtime's path, or "" */
  struct inherited_state early_state; /* what it inherited then */
  struct credentials cred;       /* the process's now (plugin.c) */
  struct simdev_control *ctl;
  int ctl_zeroed;              /* ctl is a new memfd's: all zeros, untouched */
  unsigned char *bounce;
  struct device_allocator alloc;
  struct shared_block *shared_blocks; /* host/shared memory (shared_memory.c) */
  /* process */
  pid_t pid;                /* 0 when none runs */
  int pidfd;                /* pid's pidfd (pidfd.c); -1 if none */
  pid_t supervisor_pid;     /* the device's supervisor, a child of this
                               process (exit signal 0) until reaped; 0 */
  int supervisor_pidfd;     /* its pidfd; -1 if none */
  int host_alive_fd;        /* write end of the process's liveness pipe
                               (protocol.h SIMDEV_FD_HOST_ALIVE); -1 if none */
  int supervisor_fd;        /* read end of the supervisor's pipe
                               (SIMDEV_FD_SUPERVISOR); -1 if none */
  int valgrind_log_fd;      /* SIMDEVICE_VALGRIND: the process's report file
                               (SIMDEV_FD_VALGRIND_LOG, valgrind_log.c); -1 */
  struct fd_id valgrind_log_id;
  int inherited;            /* this is a fork() child of the process that
                               owns the device: it must not touch it */
  pid_t owner_pid;          /* with `inherited`: the process that owns it */
  int stop_reported;        /* said on stderr that the process is stopped */
  char kill_reason[SIMDEV_MESSAGE_SIZE]; /* why the host ended the process
                               (kernel timeout), "" when it did not */
  int reaped;               /* pid's exit status was collected */
  int wait_status;          /* that status (-1: reaped by someone else) */
  int dead;                 /* died; the next command restarts it */
  _Atomic uint64_t death_epoch; /* deaths seen so far */
  char death_cause[SIMDEV_MESSAGE_SIZE];
  unsigned restarts;
  int queue_threads;        /* queue slots [0, n) of this process have a
                               server thread (START_QUEUES); 0 until then */
  /* images */
  struct plugin_image *images; /* load order, for replay after a restart */
  struct kernel_ref *kernels;  /* sorted by addr */
  size_t kernel_count;
};

HIDDEN struct sim_device *device_get(int32_t id); /* NULL with an error */
/* plugin.c: how kernel k takes its parameters when KernelArgs version
 * kargs_version (0: an older entry point) launches it, checked against
 * its image's compiler: 0 with *call, or -1 with the error set. */
HIDDEN int plugin_kernel_call(const struct kernel_ref *k,
                              uint32_t kargs_version, int32_t id,
                              enum simdev_call *call);
/* plugin.c: a synchronous launch (run_target_team_region with the
 * KernelArgs version; 0 for the older entry points), its device start and
 * end stored in times when not NULL (OMPT device tracing). */
HIDDEN int32_t plugin_run_sync(int32_t id, void *tgt_entry_ptr,
                               void **tgt_args, ptrdiff_t *tgt_offsets,
                               int32_t arg_num, int32_t num_teams,
                               int32_t thread_limit, uint32_t kargs_version,
                               uint64_t *times);
HIDDEN int device_count(void);
HIDDEN int device_setup(struct sim_device *dev);    /* memory + process */
/* Before a kernel runs, under channel_lock: the device process takes the
 * program's credentials when they changed (process_follow_credentials),
 * or is started again with them. 0, or -1 with the error recorded. */
HIDDEN int device_follow_credentials(struct sim_device *dev);
HIDDEN void device_teardown(struct sim_device *dev);

/* ------------------------------------------------------------ launcher.c
 * How a device process of DEVICE_MACHINE is run: directly when the host
 * runs that machine, else under qemu user mode with the guest's sysroot.
 * launcher_prepare: once, any thread; 0, or -1 with the reason in `why`
 * (then the plugin has no devices). launcher_words: the words that go
 * before the server's path (NULL-terminated array, may be empty). */
HIDDEN int launcher_prepare(char *why, size_t len);
HIDDEN const char *const *launcher_words(void);

/* ------------------------------------------------------------- process.c
 * Under channel_lock. process_start = process_launch (the process is on
 * its way; 0, or -1 with the error set) then process_await (0 once it is
 * ready, or -1 with the error set and the process gone); in between, the
 * caller may do other work (plugin.c starts device 0 early that way). */
HIDDEN int pidfd_of(pid_t pid);
HIDDEN int pidfd_missing(void);
HIDDEN int pidfd_ended(int pidfd, pid_t pid);
HIDDEN void pidfd_kill(int pidfd, pid_t pid);
HIDDEN int pidfd_reap_child(int *pidfd, pid_t *pid, int wait_ms, int *status);

HIDDEN int process_start(struct sim_device *dev);
/* Before a kernel runs (caller holds channel_lock): when the program's
 * credentials changed since the device process took its own, it takes the
 * new ones (SIMDEV_CMD_CREDENTIALS), keeping its memory and images. 0 when
 * it holds them; 1 when it could not and was ended (the caller's
 * channel_begin restarts it, memory kept); -1 on error. */
HIDDEN int process_follow_credentials(struct sim_device *dev);

HIDDEN int process_launch(struct sim_device *dev);
HIDDEN int process_await(struct sim_device *dev);
/* A launch that will not be used (an early start that a `requires
 * unified_shared_memory` program drops): waits for its outcome as
 * process_await does, so that a failure is known however late it comes;
 * 0 (the device then ends at its liveness pipe's EOF, device_teardown) or
 * -1 with the error set. */
HIDDEN int process_settle(struct sim_device *dev);
/* Collects the exit status of a dead process into dev->death_cause (with
 * the running kernel's name when `kernel` is not NULL). */
HIDDEN void process_reap(struct sim_device *dev, const char *kernel);
/* 1 when the process is gone (and reaped). */
HIDDEN int process_gone(struct sim_device *dev);
HIDDEN void process_stop(struct sim_device *dev);
/* While waiting `waited_ns` for `kernel` (NULL: another command): says once
 * on stderr when the process is stopped (SIGSTOP, a debugger), and past
 * SIMDEVICE_TIMEOUT ends the process and reaps it with the timeout as its
 * death cause. Returns 1 when the process is stopped, -1 when it was ended
 * (dev->dead is set), else 0. */
HIDDEN int process_watch(struct sim_device *dev, const char *kernel,
                         int64_t waited_ns);
/* The child side of fork(): the parent's devices become unusable here
 * (pthread_atfork child handler; no lock, only this thread exists). */
HIDDEN void process_forget_after_fork(struct sim_device *dev);
/* Likewise for a device the parent started early and never used: the child
 * forgets that start and may start its own device. */
HIDDEN void process_forget_launch_after_fork(struct sim_device *dev);
/* The folder of the device server, which also holds the device runtime and
 * the SONAME stand-ins (usm.c loads them from there). Any thread. */
HIDDEN int process_runtime_dir(char *out, size_t len);

/* ------------------------------------------------------------- channel.c
 * Under channel_lock. Sends the slot's command (fields already filled) with
 * the pending protection changes; returns 0 on success, or -1 with the error
 * recorded (the command failed, or the process died: then dev->dead is set).
 * `kernel` names the kernel a RUN executes, for death messages. */
HIDDEN int channel_begin(struct sim_device *dev, uint64_t epoch_at_entry);
HIDDEN int channel_send(struct sim_device *dev, uint32_t command,
                        const char *kernel);
HIDDEN int channel_flush_protections(struct sim_device *dev);
/* Moves the pending protection changes into the shared log (protocol.h),
 * through the main slot only when the log is full; *upto is the log
 * position a kernel posted now needs. Under channel_lock. 0 or -1. */
HIDDEN int channel_log_protections(struct sim_device *dev, uint64_t *upto);
/* Queue slots (protocol.h). Post: the slot's operands are filled, the
 * caller holds channel_lock with the protections logged. State: the slot's
 * enum simdev_slot_state. Sleep: spin, then futex-wait up to `ms` for the
 * slot to leave REQUEST. Take_reply: after DONE, 0 or -1 with the error
 * recorded; the slot is IDLE again. Check_alive: -1 with the death recorded
 * when the process that got a post at death epoch `epoch` is gone or was
 * ended by SIMDEVICE_TIMEOUT (`waited_ns` since the post), 1 when it is
 * stopped, 0 alive (takes channel_lock; with block = 0 only when it is
 * free, else says alive). */
HIDDEN void channel_queue_post(struct sim_device *dev, int index);
HIDDEN uint32_t channel_queue_state(struct sim_device *dev, int index);
HIDDEN void channel_queue_sleep(struct sim_device *dev, int index,
                               long timeout_us);
HIDDEN int channel_queue_take_reply(struct sim_device *dev, int index);
HIDDEN int channel_queue_check_alive(struct sim_device *dev, uint64_t epoch,
                                     const char *kernel, int64_t waited_ns,
                                     int block);

/* --------------------------------------------------------------- images.c
 * Under channel_lock. */
HIDDEN __tgt_target_table *images_load(struct sim_device *dev,
                                       __tgt_device_image *image);
HIDDEN int images_unload(struct sim_device *dev, __tgt_device_image *image);
HIDDEN int images_replay(struct sim_device *dev);
HIDDEN void images_forget_all(struct sim_device *dev);
HIDDEN const struct kernel_ref *images_find_kernel(struct sim_device *dev,
                                                   uint64_t addr);
/* Calls fn for each loaded image in load order: its ELF and its entries
 * (addr: the device address); stops at fn's first nonzero return. */
HIDDEN int images_each(struct sim_device *dev,
                       int (*fn)(void *ctx, const void *elf, size_t size,
                                 const __tgt_offload_entry *entries,
                                 uint64_t count),
                       void *ctx);
/* 1 when [addr, addr+size) lies inside a declare-target global. */
HIDDEN int images_global_contains(struct sim_device *dev, uint64_t addr,
                                  uint64_t size);

/* ------------------------------------------------------------- indirect.c
 * Under channel_lock. The declare target indirect table of a device: set
 * (whole table, replacing the last), re-sent to a restarted process, and
 * dropped when the device is released. */
HIDDEN int indirect_set(struct sim_device *dev, uint64_t size,
                        const __tgt_fptr_map *table);
HIDDEN int indirect_resync(struct sim_device *dev);
HIDDEN void indirect_forget(struct sim_device *dev);

/* -------------------------------------------------------- shared_memory.c
 * Host and shared memory: device memory mapped in the host at the same
 * address. shared_alloc: the pointer, or NULL with plugin_error; `kind`
 * names it in messages. shared_free: 1 when addr was such a block (freed),
 * 0 when it was not, -1 on failure. shared_forget: drop the records at
 * teardown (the mappings go with the reservation). Any thread. */
struct shared_block;
HIDDEN void *shared_alloc(struct sim_device *dev, int64_t size,
                          const char *kind);
HIDDEN int shared_free(struct sim_device *dev, uint64_t addr);
HIDDEN void shared_forget(struct sim_device *dev);
/* Whether [addr, addr+size) lies inside one host/shared block of dev (host
 * memory too, at the same address). */
HIDDEN int shared_contains(struct sim_device *dev, uint64_t addr,
                           uint64_t size);

/* ---------------------------------------------------------- valgrind_log.c
 * SIMDEVICE_VALGRIND: the file a device process's Valgrind writes its
 * reports to. valgrind_log_create: a new one (close-on-exec), or -1 with
 * errno; valgrind_log_show_rest: copies its bytes from offset `from` to the
 * end to stderr, once the process has ended. */
HIDDEN int valgrind_log_create(void);
HIDDEN void valgrind_log_show_rest(int fd, uint64_t from);

/* --------------------------------------------------------------- output.c
 * Any thread, no lock needed: the program's stdout goes first, before device
 * code that may print starts. */
HIDDEN void output_host_flush(void);

/* ------------------------------------------------------------------ usm.c
 * `requires unified_shared_memory` / `unified_address`: images run in the
 * host process (see usm.c). usm_active: 1 once init_requires chose this
 * mode; the entry points then hand their work to the usm_* functions. Any
 * thread; each function takes its device's lock itself. */
HIDDEN int usm_active(void);
HIDDEN int64_t usm_init_requires(int64_t flags, uint32_t info);
HIDDEN __tgt_target_table *usm_load_binary(int32_t id,
                                           __tgt_device_image *image);
HIDDEN int32_t usm_unload_binary(int32_t id, __tgt_device_image *image);
HIDDEN void *usm_data_alloc(int32_t id, int64_t size, void *hst_ptr);
HIDDEN int32_t usm_data_delete(int32_t id, void *tgt_ptr);
HIDDEN int32_t usm_copy(void *dst, const void *src, int64_t size);
/* usm_run: arg_num is already checked (0..SIMDEV_PROTO_MAX_ARGS); `call`
 * is how the kernel takes its parameters. */
HIDDEN int32_t usm_run(int32_t id, void *entry, void **tgt_args,
                       ptrdiff_t *tgt_offsets, int32_t arg_num,
                       int32_t num_teams, int32_t thread_limit, uint32_t info,
                       enum simdev_call call);

/* --------------------------------------------------------------- record.c
 * SIMTARGET_RECORD=DIR (simdevice/README.md): record_wanted (it counts the
 * launch) is the one check a launch pays when it is off. Under channel_lock, before the
 * kernel's slot is filled: record_before writes the launch's images,
 * arguments, geometry and device memory; record_after (rc: the RUN's) the
 * memory after it or its fault. record_alloc_at: simtarget-replay's
 * allocation at a recorded address (__tgt_rtl_simdevice_alloc_at). */
HIDDEN int record_wanted(const char *kernel);
/* 1 when SIMTARGET_RECORD is set: queues.c then runs an asynchronous launch
 * synchronously, after what was queued before it, so it is recorded. */
HIDDEN int record_on(void);
HIDDEN void record_before(struct sim_device *dev, const char *kernel,
                          void **tgt_args, ptrdiff_t *tgt_offsets,
                          int32_t arg_num, int32_t num_teams,
                          int32_t thread_limit);
HIDDEN void record_after(struct sim_device *dev, int rc);
/* Around a host write into device memory outside channel_lock (data_submit,
 * data_exchange): with SIMTARGET_RECORD it waits while a launch of dev is
 * being recorded (from record_before to record_after). begin returns what
 * end is given. */
HIDDEN int record_write_begin(struct sim_device *dev);
HIDDEN void record_write_end(struct sim_device *dev, int held);
/* A launch that cannot be recorded: when SIMTARGET_RECORD chose it, the
 * first of each kind is said on stderr (and it counts as a launch). */
enum record_unable_why { RECORD_UNABLE_IN_HOST, RECORD_UNABLE_POINTERS };
HIDDEN void record_unable(const char *kernel, enum record_unable_why why);
/* The simtarget version recordings name (build/version.h). */
HIDDEN const char *record_version(void);
HIDDEN int record_alloc_at(struct sim_device *dev, uint64_t addr,
                           uint64_t size);

#endif
