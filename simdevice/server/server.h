/*
 * server.h - internals of simdevice-server, the device process.
 *
 * Threads and locks: the main thread serves the main command slot (every
 * command: STAGE/LOAD/UNLOAD, FPTR_MAP, copies, RUN); after START_QUEUES one
 * thread per queue slot runs that slot's kernels (RUN only), so kernels run
 * while the main thread loads or unloads images or installs a new function
 * table; the device runtime adds worker threads that run kernel code. The
 * image table and the function table are written by the main thread only.
 * What other threads read of them (entry names for fault reports and error
 * messages, the function table for redirected calls) lives in immutable
 * snapshots (snapshot.c) that readers use without blocking, fault handlers
 * included; the bounce area and the staged image are the main thread's.
 */
#ifndef SIMDEVICE_SERVER_H
#define SIMDEVICE_SERVER_H

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "../protocol.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The device runtime's launch API, found with dlsym (simdev_rt.h). */
struct server_runtime {
  int (*call)(void *fn, int nargs, const uint64_t *args);
  int (*kernel_begin)(int32_t num_teams, int32_t thread_limit);
  void (*kernel_end)(void);
  void (*kernel_prepare)(void); /* optional (NULL: kernel_begin does it) */
  void (*limits)(int32_t *max_teams, int32_t *max_threads);
  void (*set_device_num)(int32_t num);
  /* optional: the flag of the host thread that waits for this thread's
   * launches (simdev_rt.h) */
  void (*set_launch_waiter)(const _Atomic uint32_t *sleeping);
};

/* environment.c: every variable the server reads, read once by main()
 * (environment_read) before any thread starts; read-only afterwards. */
struct server_environment {
  const char *runtime; /* SIMDEVICE_RUNTIME, or NULL */
#ifdef SIMTARGET_TEST_HOOKS
  int test_guard_mprotect;          /* SIMDEVICE_TEST_GUARD_MPROTECT=1 */
  unsigned test_supervisor_late_ms; /* SIMDEVICE_TEST_SUPERVISOR_LATE_MS */
#endif
};
HIDDEN void environment_read(void);
HIDDEN const struct server_environment *environment_get(void);

/* timeslice.c: asks the scheduler for a slice of `slice_us` microseconds
 * (0: keep the kernel's) for this thread and the threads it starts later. */
HIDDEN void timeslice_request(uint32_t slice_us);

/* credentials.c: SIMDEV_CMD_CREDENTIALS (protocol.h): takes the uids and
 * gids in a[0..5] and a[6] groups (u32 each at `groups`), arms the
 * parent-death signal again (exits when `supervisor` is gone), and replies
 * the capabilities it holds in a[0..2]. 0, or -1 with the reason in msg. */
HIDDEN int credentials_take(uint64_t *a, const unsigned char *groups,
                            pid_t supervisor, char *msg, size_t len);

/* images.c: staging, dlopen and entry resolution. Each returns 0 on success,
 * or -1 with the reason written to `msg`. */
/* supervise.c: `simdevice-server --supervise` (the device process is its
 * child already, its pid in the control area). */
HIDDEN int supervise_main(void);

HIDDEN int images_stage(const void *bytes, size_t size, int start_new,
                        char *msg, size_t msg_len);
HIDDEN int images_load(const char *names, uint64_t name_count,
                       size_t names_len, uint64_t *addrs_out,
                       uint64_t *image_id_out, char *msg, size_t msg_len);
HIDDEN int images_unload(uint64_t image_id, char *msg, size_t msg_len);
HIDDEN void images_unload_all(void);
/* Copies the host entry name of device address `addr` into buf (len > 0)
 * and returns 1, or writes "" and returns 0 when no loaded image has that
 * entry. Any thread; async-signal-safe (never blocks). */
HIDDEN int images_entry_name(uint64_t addr, char *buf, size_t len);

/* stubs.c: the SONAME stand-ins in `dir`, loaded (RTLD_GLOBAL) before
 * the dlopen of the image in `image_fd` that NEEDs them. */
HIDDEN void stubs_init(const char *dir);
HIDDEN void stubs_load_for_image(int image_fd);
/* Calls need(name) for each DT_NEEDED of the ELF image in file[0..size)
 * (need: 1 when the name is known); 0 when all were known or the image
 * has no dynamic section, -1 when it could not be read or one was not
 * known. Any bytes (fuzzed). */
HIDDEN int stubs_each_needed(const unsigned char *file, size_t size,
                             int (*need)(const char *name));

/* faults.c: catch SIGSEGV/SIGBUS/SIGILL/SIGFPE, record them in the control
 * area, wake the host and exit. */
HIDDEN int faults_install(struct simdev_control *ctl, char *msg, size_t len);
/* The kernel the calling thread now runs (0: it finished). */
HIDDEN void faults_set_running_kernel(uint64_t fn);
/* A sanitizer reported a bad access at `addr` (a write when `write`;
 * `summary`: the rest of its SUMMARY line, or NULL): the fault record says
 * so and the host is woken; the sanitizer then ends the process itself. */
HIDDEN void faults_record_sanitizer(uint64_t addr, int write,
                                    const char *summary);

/* sanitizer.c: the device process under a sanitizer's runtime (ASan
 * reports go to the fault record too). */
HIDDEN void sanitizer_init(void);
/* Around each kernel: its ordering after the kernels that ended before it
 * (for ThreadSanitizer; nothing without it). */
HIDDEN void sanitizer_kernel_begin(void);
HIDDEN void sanitizer_kernel_end(void);
/* environment.c: LD_PRELOAD back to the program's (the plugin put a
 * sanitizer's runtime first in it). */
HIDDEN void environment_restore_preload(void);

/* faults_ppc64le.c (ppc64le builds): the access kind of a SIGSEGV/SIGBUS
 * decoded from the instruction at the PC (qemu fills no DSISR), the PC,
 * and the indirect-call redirect (1: resume). Async-signal-safe. */
#if defined(__powerpc64__)
#include <signal.h>
HIDDEN int faults_ppc64le_access_kind(int sig, const siginfo_t *info,
                                      const void *uctx);
HIDDEN uint64_t faults_ppc64le_pc(const void *uctx);
HIDDEN int faults_ppc64le_redirect(int sig, siginfo_t *info, void *uctx);
#endif

/* indirect.c: the declare target indirect table (SIMDEV_CMD_FPTR_MAP). */
HIDDEN int indirect_store(const struct simdev_fptr_row *rows, uint64_t count,
                          uint64_t at, uint64_t total, char *msg, size_t len);
/* The device function for host function `host`, or 0; async-signal-safe. */
HIDDEN uint64_t indirect_lookup(uint64_t host);
/* Keep the host's code addresses unmapped here (reserved inaccessible), so
 * that calling one faults; called once before anything is loaded. */
HIDDEN void indirect_guard_host_code(pid_t host, int device_id);

/* snapshot.c: a table that the main thread replaces while any thread reads
 * it, signal handlers included. Readers: t = snapshot_enter(s, &ticket),
 * use t (NULL when none), snapshot_leave(s, ticket); they never block.
 * snapshot_replace (main thread only) publishes `next` and returns the old
 * table once no reader can still use it: the caller frees it. Zero-filled
 * is an empty snapshot. */
struct snapshot {
  void *_Atomic current;
  _Atomic unsigned epoch;
  _Atomic unsigned readers[2];
};
HIDDEN const void *snapshot_enter(struct snapshot *s, unsigned *ticket);
HIDDEN void snapshot_leave(struct snapshot *s, unsigned ticket);
HIDDEN void *snapshot_replace(struct snapshot *s, void *next);

/* output.c: device stdout line-buffered (output_init, once at start) and
 * flushed when a command that ran device code completes (output_flush, any
 * thread), so device output is written by the end of its construct. */
HIDDEN void output_init(void);
HIDDEN void output_flush(void);

/* protections.c: applies the host's protection changes to device memory.
 * protections_init (once, after device memory is mapped, before serving)
 * chooses guard regions or mprotect for a guarded device (a probe on
 * `memory_fd`) and writes ctl->guard_mode; protections_apply (any slot's
 * thread, before its command) applies the log up to what the command needs
 * (a queue slot: s->prot_upto; the main slot: all of it), then s->prot[]. */
HIDDEN void protections_init(struct simdev_control *ctl, int memory_fd);
/* memcheck.c: memcheck's view of device bytes (SIMDEVICE_VALGRIND=memcheck):
 * memcheck_init once, after device memory is mapped; memcheck_apply takes a
 * change of the host's queue and returns 1 when it was a mark (applied, or
 * ignored when marks are off), 0 for a protection change; memcheck_on: 1
 * when marks are applied in this process. */
HIDDEN void memcheck_init(const struct simdev_control *ctl);
HIDDEN int memcheck_apply(const struct simdev_prot_change *c);
HIDDEN int memcheck_on(void);
/* names.c: the host variables device allocations hold (SIMDEV_CMD_NAME's
 * text: the name, a newline, how and where it was mapped), by offset in
 * device memory; names_drop forgets those starting in a freed range;
 * names_describe gives the variable holding device address `addr` and
 * "N bytes into it; how", 1, or 0 when no name covers it. */
HIDDEN void names_init(uint64_t dev_base, uint64_t dev_capacity);
HIDDEN void names_set(uint64_t offset, uint64_t size, const char *text);
HIDDEN void names_drop(uint64_t offset, uint64_t length);
HIDDEN int names_describe(const void *addr, char *variable,
                          size_t variable_len, char *how, size_t how_len);
/* valgrind_log.c: Valgrind's reports (its --log-fd file), read back:
 * valgrind_log_init once, and valgrind_log_watch at most once, before
 * serving; valgrind_log_show (any thread) copies what Valgrind wrote since
 * the last call to stderr, handing each line (NUL-terminated, without its
 * newline) to the watcher. Does nothing when the plugin made no log file. */
typedef void valgrind_log_line_fn(const char *line);
HIDDEN void valgrind_log_init(struct simdev_control *ctl);
HIDDEN void valgrind_log_watch(valgrind_log_line_fn *each_line);
HIDDEN void valgrind_log_show(void);
/* In the supervisor, once the device process has ended: the rest of its
 * Valgrind's log, to stderr. */
HIDDEN void valgrind_log_show_rest(struct simdev_control *ctl);
/* races.c: races_init (once, before serving) has the races in Valgrind's
 * log noted as it is shown; races_after_kernel, after a kernel Helgrind or
 * DRD (`tool`) reported errors in, shows the log, then the verdict: the
 * variables the racing addresses noted since the last verdict lie in, on
 * stderr and as findings (rule data-race). */
HIDDEN void races_init(void);
HIDDEN void races_after_kernel(const char *tool, const char *kernel);
/* The allocation at `offset` holds the variable `text` describes: memcheck's
 * reports of its bytes name it from now on. */
HIDDEN void memcheck_name(uint64_t offset, uint64_t size, const char *text);
/* The Valgrind tool's error count (0 when off), read before a kernel, and
 * after it: memcheck's errors are followed by the named allocations never
 * written, helgrind's and drd's by the kernel that raced, on stderr and as
 * a finding (check_findings.h). */
HIDDEN unsigned memcheck_errors(void);
HIDDEN void memcheck_after_kernel(const char *kernel, unsigned errors_before);
/* Device bytes [offset, offset + size) go back to the host: when none was
 * ever written, that is said naming their variable, and as a finding. */
HIDDEN void memcheck_copy_back(uint64_t offset, uint64_t size);
/* Just before the process ends (any thread): memcheck's leak search at the
 * end is kept out of device memory. */
HIDDEN void memcheck_before_exit(void);
HIDDEN void protections_apply(struct simdev_slot *s, int queue_slot);

/* Wakes every thread (of any process) waiting on the futex `word`, a
 * shared (not process-private) word: a reply's slot state, the server's
 * ready word. Here, not in main.c, because the fault handler (faults.c,
 * below main.c) wakes the host too; async-signal-safe. */
static inline void server_futex_wake(_Atomic uint32_t *word) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

#endif
