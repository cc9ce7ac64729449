/*
 * process.c - the device process's life: start, death detection without
 * blocking, a kernel timeout, and a clean stop.
 *
 * (Issue 30: the starter puts itself in a process group of its own, so the
 * program's group signals never reach the device; every signal, poll and
 * wait goes through a pidfd (pidfd.c); in a program that is PID 1 or a
 * child subreaper the starter supervises itself, never exec'd, exit signal
 * 0, so no orphan becomes the program's child; ending a device also closes
 * its liveness pipe.)
 *
 * Start: a clone with exit signal 0 that runs no fork handlers (libomp's
 * would register a /dev/shm file for the child that exec then leaks), the
 * starter, puts the two memfds on fds 3 and 4 and the read end of the
 * liveness pipe on fd 5 and the write end of the supervisor's pipe on fd 6
 * (its EOF tells the supervisor is gone), turns ASLR off, starts the
 * supervisor and exits. The starter shares the host's memory while the
 * calling thread waits (CLONE_VM | CLONE_VFORK, start_sharing_memory), and
 * vforks the supervisor, so no page table of the host's is copied; where
 * clone refuses that (qemu user mode), it is a fork-like clone that forks
 * the supervisor. The supervisor is thus an orphan, and the device
 * process it vforks is no child of the program: a program that reaps all
 * its children or counts SIGCHLD never meets it. The supervisor publishes
 * the device's pid, then execs `simdevice-server --supervise`
 * (server/supervise.c), which records its wait status in the control area
 * (the device's exec thus does not wait for the supervisor's; one exec on
 * the way to a ready device, not two); that, and kill(pid, 0) when the supervisor is
 * gone too, is how death is detected. The device dies with its host: the
 * host holds the only write end of the liveness pipe (O_CLOEXEC; a fork()
 * child closes its copy, plugin.c), and the server exits when it reads EOF
 * there, also in the middle of a kernel.
 *
 * Locking: every function runs under the device's channel_lock (asserted).
 * The server path and wrapper (settings.c) are resolved once under
 * pthread_once.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include "check_findings.h"
#include "plugin_faults.h"
#include "lock_check.h"
#include "plugin_internal.h"
#include "../supervisor_exit.h"

extern char **environ;

#define MAX_WRAPPER_WORDS 32
static pthread_once_t paths_once = PTHREAD_ONCE_INIT;
static char server_path[PATH_MAX];
/* The supervisor: the server itself, or for a device process of another
 * machine (launcher.c) the host's server beside the plugin. */
static char supervisor_path[PATH_MAX];
static char wrapper_buf[4096];
static char *wrapper_argv[MAX_WRAPPER_WORDS + 1];
static char wrapper_exe[PATH_MAX];
static int wrapper_words;
static char paths_error[512];
/* The program runs with a sanitizer's runtime (start_sharing_memory). */
static int sanitized_host;

/* Finds a command on PATH (before fork: execvp is not async-signal-safe). */
static int resolve_on_path(const char *cmd, char *out, size_t len) {
  if (strchr(cmd, '/') != NULL) {
    snprintf(out, len, "%s", cmd);
    return access(out, X_OK) == 0 ? 0 : -1;
  }
  const char *path = plugin_settings()->search_path;
  while (*path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    snprintf(out, len, "%.*s/%s", (int)n, path, cmd);
    if (access(out, X_OK) == 0)
      return 0;
    path += n + (colon ? 1 : 0);
  }
  return -1;
}

/* SIMDEVICE_VALGRIND: the Valgrind command line in front of the server,
 * into wrapper_buf (split at spaces as SIMDEVICE_WRAPPER is): the tool,
 * an exit status that says it found errors (process_stop reports it), its
 * reports to the file the server reads (SIMDEV_FD_VALGRIND_LOG), the
 * suppressions for the device runtime installed beside the server, and for
 * memcheck the origin of every undefined value. No gdbserver: its FIFOs in
 * $TMPDIR outlive a server that is killed (a timeout, a lost host). */
static void valgrind_words(int tool) {
  static const char *const names[] = {"", "memcheck", "helgrind", "drd"};
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", server_path);
  char *slash = strrchr(dir, '/');
  if (slash != NULL)
    *slash = '\0';
  int n = snprintf(wrapper_buf, sizeof wrapper_buf,
                   "valgrind --tool=%s -q --error-exitcode=%d "
                   "--log-fd=%d --child-silent-after-fork=yes --vgdb=no%s",
                   names[tool], VALGRIND_ERROR_EXIT, SIMDEV_FD_VALGRIND_LOG,
                   tool == VALGRIND_MEMCHECK ? " --track-origins=yes" : "");
  char supp[PATH_MAX + 32];
  snprintf(supp, sizeof supp, "%.4000s/valgrind-%s.supp",
           slash != NULL ? dir : ".", names[tool]);
  /* A space in the path would split it: left out, as a missing file is. */
  if (n > 0 && access(supp, R_OK) == 0 && strchr(supp, ' ') == NULL)
    snprintf(wrapper_buf + n, sizeof wrapper_buf - (size_t)n,
             " --suppressions=%s", supp);
}

static void compute_paths(void) {
  const struct plugin_settings *set = plugin_settings();
  /* Every sanitizer runtime (ASan, TSan, MSan, UBSan, LSan) has it. */
  sanitized_host = dlsym(RTLD_DEFAULT, "__sanitizer_set_report_path") != NULL;
  if (set->server != NULL) {
    snprintf(server_path, sizeof server_path, "%s", set->server);
  } else {
    /* Any function of the plugin names its file: this file's own. */
    Dl_info info;
    if (dladdr((void *)process_launch, &info) == 0 ||
        info.dli_fname == NULL) {
      snprintf(paths_error, sizeof paths_error,
               "simdevice: cannot find the plugin's own file (dladdr)");
      return;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
      *slash = '\0';
    else
      snprintf(dir, sizeof dir, ".");
    snprintf(server_path, sizeof server_path,
             "%.4000s/" DEVICE_SERVER_DIR "/simdevice-server", dir);
    snprintf(supervisor_path, sizeof supervisor_path,
             "%.4000s/simdevice/simdevice-server", dir);
  }
  if (!DEVICE_FOREIGN || supervisor_path[0] == '\0')
    snprintf(supervisor_path, sizeof supervisor_path, "%s", server_path);
  if (access(server_path, X_OK) != 0) {
    snprintf(paths_error, sizeof paths_error,
             "simdevice: the device server %.300s cannot be run: %s (set "
             DEVICE_SERVER_VAR ")",
             server_path, strerror(errno));
    return;
  }
  if (access(supervisor_path, X_OK) != 0) {
    snprintf(paths_error, sizeof paths_error,
             "simdevice: the supervisor %.300s of the " DEVICE_MACHINE_NAME
             " device process cannot be run: %s",
             supervisor_path, strerror(errno));
    return;
  }
  if (set->valgrind != VALGRIND_NONE)
    valgrind_words(set->valgrind);
  else if (set->wrapper != NULL)
    snprintf(wrapper_buf, sizeof wrapper_buf, "%s", set->wrapper);
  if (wrapper_buf[0] != '\0') {
    char *save = NULL;
    for (char *w = strtok_r(wrapper_buf, " \t", &save);
         w != NULL && wrapper_words < MAX_WRAPPER_WORDS;
         w = strtok_r(NULL, " \t", &save))
      wrapper_argv[wrapper_words++] = w;
    if (wrapper_words > 0 &&
        resolve_on_path(wrapper_argv[0], wrapper_exe, sizeof wrapper_exe) != 0) {
      snprintf(paths_error, sizeof paths_error,
               "simdevice: SIMDEVICE_WRAPPER command `%s` is not on PATH",
               wrapper_argv[0]);
      return;
    }
  }
}

/* The starter's exit status when the supervisor it shared memory with
 * could not exec. */
#define STARTER_SUPERVISOR_EXEC_FAILED 124

/* Ends the clone child with the exit system call itself: a sanitizer's _exit
 * (TSan) finalises and flushes the parent's copied stdio buffers, which the
 * program then printed once more per device started. */
static _Noreturn void child_exit(int status) {
  for (;;)
    syscall(SYS_exit_group, status);
}

/* In the supervisor-to-be, when its exec fails: supervises inline with
 * system calls only (it stays a copy of the host, which costs the host
 * copy-on-write faults, but the device still gets a supervisor). */
static _Noreturn void supervise_inline(struct simdev_control *ctl, pid_t pid) {
  supervisor_record_exit(ctl, supervisor_wait_status(pid));
  while (syscall(SYS_wait4, pid, NULL, 0, NULL) < 0 && errno == EINTR)
    ;
  child_exit(0);
}

/* What the starter needs, all prepared by the host before it starts. */
struct starter_args {
  struct simdev_control *ctl;
  int ctl_fd, mem_fd, alive_fd, supervisor_fd;
  int valgrind_log_fd; /* SIMDEVICE_VALGRIND: the file that becomes
                          SIMDEV_FD_VALGRIND_LOG (the log, or stderr when
                          there is none); -1 without Valgrind */
  const char *device_exe;
  char *const *device_argv;
  char *const *device_envp; /* the device process's environment */
  char *const *supervisor_argv;
  const sigset_t *mask;     /* the host thread's signal mask */
  int shares_host_memory;   /* started by start_sharing_memory */
  int fail_supervisor_exec; /* injected fault (supervisor_exec) */
  /* Set by a supervisor sharing memory whose exec failed, before it exits:
   * its starter reads it when the vfork returns, when the supervisor may
   * not be a zombie yet (a wait4 WNOHANG alone misses it then). */
  volatile int *supervisor_failed;
  int keep_supervisor;      /* the starter supervises, never execs: the
                               program adopts orphans (process_launch) */
  void *host_view;          /* the host's mapping of device memory */
  uint64_t host_view_bytes;
};

/* In the starter: only system calls (the parent may have other threads,
 * and no fork handler ran). Signals arrive blocked (process_start); the
 * host's handlers go back to their defaults before they are unblocked.
 * Starts the supervisor and exits: 0, or 126 when the descriptors cannot
 * be set up, 125 when the supervisor cannot be started, 124 when it could
 * not exec (a starter sharing memory only). The supervisor
 * (an orphan once this exits) vforks the device process first, so that the
 * device's exec does not wait for the supervisor's own exec, publishes the
 * device's pid in the control area, and only then execs
 * `simdevice-server --supervise` (server/supervise.c), which waits for it.
 * A vfork, not a fork: the device process copies no page table of the
 * host's. The device's exec failing is its exit status 127. */
static void bound_to_permitted(void);

static void start_supervisor(const struct starter_args *a) {
  struct simdev_control *ctl = a->ctl;
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_DFL &&
        old.sa_handler != SIG_IGN)
      signal(sig, SIG_DFL);
  }
  sigprocmask(SIG_SETMASK, a->mask, NULL);
  /* A process group of its own: the signals the program's group gets
   * (Ctrl-C, `timeout`, `docker stop`, systemd) are the program's to
   * handle; the device still ends with the host (the liveness pipe). Not
   * a session of its own (setsid): with autogroup scheduling that is a
   * scheduling group of its own, and a loaded 2-core VM then took 8-10 ms
   * more for the first target region (bench_first_region). */
  setpgid(0, 0);
  int ctl_high = fcntl(a->ctl_fd, F_DUPFD, 10);
  int mem_high = fcntl(a->mem_fd, F_DUPFD, 10);
  int alive_high = fcntl(a->alive_fd, F_DUPFD, 10);
  int supervisor_high = fcntl(a->supervisor_fd, F_DUPFD, 10);
  /* (before the dup2s below, which may close its number) */
  int log_high = a->valgrind_log_fd >= 0
                     ? fcntl(a->valgrind_log_fd, F_DUPFD, 10) : -1;
  if (ctl_high < 0 || mem_high < 0 || alive_high < 0 || supervisor_high < 0 ||
      dup2(ctl_high, SIMDEV_FD_CONTROL) < 0 ||
      dup2(mem_high, SIMDEV_FD_MEMORY) < 0 ||
      dup2(alive_high, SIMDEV_FD_HOST_ALIVE) < 0 ||
      dup2(supervisor_high, SIMDEV_FD_SUPERVISOR) < 0)
    child_exit(126);
  int last_fd = SIMDEV_FD_SUPERVISOR;
  if (a->valgrind_log_fd >= 0) {
    if (log_high < 0 || dup2(log_high, SIMDEV_FD_VALGRIND_LOG) < 0)
      child_exit(126);
    last_fd = SIMDEV_FD_VALGRIND_LOG;
  }
  syscall(SYS_close_range, last_fd + 1, ~0u, 0);
  /* Same images at the same addresses after a restart (inherited through
   * both fork and exec). */
  int persona = personality(0xffffffff);
  if (persona != -1)
    personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
  bound_to_permitted();
  /* Sharing memory (vfork) when the starter does too: no copy of the
   * host's page tables; this waits until the supervisor has exec'd. A
   * program that adopts orphans (keep_supervisor) has the starter itself
   * supervise. */
  pid_t supervisor = a->keep_supervisor ? 0
                     : a->shares_host_memory
                         ? vfork()
                         : (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD,
                                          NULL, NULL, NULL, 0ul);
  if (supervisor > 0 && a->shares_host_memory) {
    /* Back here once the supervisor exec'd, or exited because it could
     * not (below): then the host hears of it from this exit status. */
    int status = 0;
    if (*a->supervisor_failed ||
        syscall(SYS_wait4, supervisor, &status, WNOHANG, NULL) == supervisor)
      child_exit(STARTER_SUPERVISOR_EXEC_FAILED);
  }
  if (supervisor != 0)
    child_exit(supervisor < 0 ? 125 : 0);
  /* The supervisor. */
  supervisor = getpid();
  pid_t device = vfork();
  if (device == 0) {
    /* The supervisor's pipe is its own (protocol.h). */
    close(SIMDEV_FD_SUPERVISOR);
    /* Killed with its supervisor (single-threaded, so its thread is the
     * process), never left as an orphan that a subreaper or PID 1 (the
     * program itself in a container) would inherit. */
    prctl(PR_SET_PDEATHSIG, (unsigned long)SIGKILL, 0UL, 0UL, 0UL);
    if (getppid() != supervisor)
      child_exit(127);
    /* A background group writing to the program's terminal under `stty
     * tostop` would be stopped: its output goes out as the program's. */
    signal(SIGTTOU, SIG_IGN);
    execve(a->device_exe, a->device_argv, a->device_envp);
    child_exit(127);
  }
  if (device < 0) {
    ctl->exit_status = 126 << 8; /* as if it exited with 126 */
    atomic_store(&ctl->server_exited, 1);
    syscall(SYS_futex, (uint32_t *)&ctl->server_ready, FUTEX_WAKE, INT_MAX,
            NULL, NULL, 0);
    child_exit(0);
  }
  atomic_store(&ctl->server_pid, (int32_t)device);
  /* The device's memory and liveness pipe are its own business. */
  /* (The Valgrind log stays: the supervisor shows its end.) */
  close(SIMDEV_FD_MEMORY);
  close(SIMDEV_FD_HOST_ALIVE);
  if (!a->fail_supervisor_exec && !a->keep_supervisor)
    execve(a->supervisor_argv[0], a->supervisor_argv, environ);
  if (a->shares_host_memory) {
    /* The host waits until this process execs or exits: supervising here
     * would hold it for the device's whole life. The device goes. */
    *a->supervisor_failed = 1;
    kill(device, SIGKILL);
    while (syscall(SYS_wait4, device, NULL, 0, NULL) < 0 && errno == EINTR)
      ;
    child_exit(STARTER_SUPERVISOR_EXEC_FAILED);
  }
  supervise_inline(ctl, device);
}

static int starter_main(void *arg) {
  start_supervisor(arg);
  return 0; /* not reached */
}

#define STARTER_STACK_BYTES (64 * 1024)

/* Starts the starter in this process's memory (CLONE_VM, on a stack of its
 * own, exit signal 0), the calling thread waiting until it exits
 * (CLONE_VFORK): it and the supervisor it vforks copy no page table of the
 * host's, and the host takes no copy-on-write fault afterwards (a fork
 * costs both on the order of 100 us each on a VM). The starter does
 * system calls only, as a fork child would. Its pid, or -1 with errno
 * (EINVAL: not here, or clone refused these flags, as qemu user mode
 * does). */
static pid_t start_sharing_memory(struct starter_args *args) {
  /* A sanitizer's runtime intercepts the starter's sigaction and vfork,
   * and its state is the host's in shared memory: the ASan and TSan
   * programs' starters failed. Valgrind runs this clone as a fork, and a
   * copy of the host must know it is one (starter_spawn's copy unmaps the
   * host's view of device memory). In both, a fork. */
  if (sanitized_host || plugin_settings()->host_under_valgrind) {
    errno = EINVAL;
    return -1;
  }
  /* Only here: a forked supervisor supervises inline when its exec fails
   * (no failure to inject). */
  args->shares_host_memory = 1;
  args->fail_supervisor_exec = SIM_FAULT(SUPERVISOR_EXEC);
  char *stack = mmap(NULL, STARTER_STACK_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED)
    return -1;
  pid_t pid = clone(starter_main, stack + STARTER_STACK_BYTES,
                    CLONE_VM | CLONE_VFORK, args);
  int err = errno;
  /* Back here, the starter has exited and the supervisor and device have
   * exec'd: no one runs on the stack any more. */
  munmap(stack, STARTER_STACK_BYTES);
  errno = err;
  return pid;
}

static void sleep_ms(long ms) {
  struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

/* 1 once the supervisor has exited (EOF on its pipe), or when there is no
 * pipe to tell. */
static int supervisor_gone(struct sim_device *dev) {
  if (dev->supervisor_fd < 0)
    return 1;
  struct pollfd p = {.fd = dev->supervisor_fd, .events = POLLIN};
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLIN | POLLERR));
}

int process_gone(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (dev->pid <= 0)
    return 1;
  if (dev->reaped)
    return 1;
  if (atomic_load(&dev->ctl->server_exited)) {
    dev->reaped = 1;
    dev->wait_status = dev->ctl->exit_status;
    return 1;
  }
  /* The supervisor was killed too: the pid is all there is to watch. But
   * the device process is also gone (reaped) in the moment between the
   * supervisor's waitpid and its writes of exit_status and server_exited:
   * it is gone for good only once the supervisor is, else those late
   * writes would land in the control area of the next process, which would
   * then seem to have died (with the old status) while it runs on. */
  if (pidfd_ended(dev->pidfd, dev->pid) && supervisor_gone(dev)) {
    dev->reaped = 1;
    dev->wait_status = -1;
    return 1;
  }
  return 0;
}

/* Ends the device process: SIGKILL through its pidfd, and EOF on its
 * liveness pipe, on which it exits by itself also when the signal is not
 * allowed (the program dropped its privileges after the device started). */
static void end_process(struct sim_device *dev) {
  pidfd_kill(dev->pidfd, dev->pid);
  fd_close_if_ours(&dev->host_alive_fd, &dev->alive_id);
}

/* The supervisor's pidfd for a reap (which closes it), or -1 once the
 * program has closed that number, perhaps reusing it for a file of its
 * own: the reap then goes by pid. A daemon that closed every descriptor
 * at the top of main and opened its files lost one of them to the reap of
 * a device started before main (early_start_closed_fds.c, 1 run in 10). */
static int *supervisor_pidfd(struct sim_device *dev) {
  if (dev->supervisor_pidfd >= 0 && !fd_still_ours(&dev->supervisor_pidfd_id))
    dev->supervisor_pidfd = -1;
  return &dev->supervisor_pidfd;
}

/* Reaps the supervisor, a child of this process that has ended or ends
 * within `wait_ms`; else it is reaped at the next start or stop. */
static void collect_supervisor(struct sim_device *dev, int wait_ms) {
  int status;
  pidfd_reap_child(supervisor_pidfd(dev), &dev->supervisor_pid, wait_ms,
                   &status);
}

static void close_liveness(struct sim_device *dev) {
  /* Closed only while still the plugin's: the program may have closed and
   * reused the numbers (inherit.c). */
  fd_close_if_ours(&dev->pidfd, &dev->pidfd_id);
  fd_close_if_ours(&dev->host_alive_fd, &dev->alive_id);
  fd_close_if_ours(&dev->supervisor_fd, &dev->supervisor_fd_id);
}

/* SIMDEVICE_VALGRIND: the process has ended (or was never started): what
 * its Valgrind wrote that neither the server nor the supervisor showed (a
 * supervisor that was killed or could not exec) goes to stderr now, and
 * the file is closed. Shown only while the descriptor is still the
 * plugin's (the program may have closed and reused the number). */
static void valgrind_log_finish(struct sim_device *dev) {
  if (dev->valgrind_log_fd < 0)
    return;
  if (fd_still_ours(&dev->valgrind_log_id) && dev->ctl != NULL)
    valgrind_log_show_rest(dev->valgrind_log_fd,
                           atomic_load(&dev->ctl->valgrind_log_shown));
  fd_close_if_ours(&dev->valgrind_log_fd, &dev->valgrind_log_id);
}

/* SIMDEVICE_VALGRIND: a new report file for the process about to start.
 * Without one, Valgrind writes to stderr as it did before there was one,
 * and race reports name no variable. */
static void valgrind_log_open(struct sim_device *dev) {
  valgrind_log_finish(dev); /* the last process's, if not done yet */
  if (plugin_settings()->valgrind == VALGRIND_NONE)
    return;
  dev->valgrind_log_fd = valgrind_log_create();
  if (dev->valgrind_log_fd < 0)
    fprintf(stderr, "simdevice: device %d: no file for Valgrind's reports "
            "(memfd_create: %s); they go to stderr, and race reports name "
            "no variable\n", dev->id, strerror(errno));
  fd_remember(&dev->valgrind_log_id, dev->valgrind_log_fd);
}

void process_reap(struct sim_device *dev, const char *kernel) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  /* A faulting server is already in _exit: give it 2 s, then kill it. */
  for (int i = 0; i < 200 && !process_gone(dev); i++)
    sleep_ms(10);
  if (!process_gone(dev)) {
    end_process(dev);
    while (!process_gone(dev))
      sleep_ms(1);
  }
  collect_supervisor(dev, 1000);
  valgrind_log_finish(dev);
  char during[320] = "";
  if (kernel != NULL)
    snprintf(during, sizeof during, " during kernel `%s`", kernel);
  int st = dev->wait_status;
  close_liveness(dev);
  dev->stop_reported = 0;
  if (dev->kill_reason[0] != '\0')
    snprintf(dev->death_cause, sizeof dev->death_cause, "%s",
             dev->kill_reason);
  else if (st == -1)
    snprintf(dev->death_cause, sizeof dev->death_cause,
             "device %d (pid %d) ended%s; how is unknown (its supervisor "
             "process was gone too)",
             dev->id, (int)dev->pid, during);
  else if (WIFSIGNALED(st))
    snprintf(dev->death_cause, sizeof dev->death_cause,
             "device %d (pid %d) was killed by signal %d (%s)%s", dev->id,
             (int)dev->pid, WTERMSIG(st), strsignal(WTERMSIG(st)), during);
  else
    snprintf(dev->death_cause, sizeof dev->death_cause,
             "device process %d (pid %d) exited with status %d%s", dev->id,
             (int)dev->pid, WEXITSTATUS(st), during);
  dev->dead = 1;
  atomic_fetch_add(&dev->death_epoch, 1);
}

int process_runtime_dir(char *out, size_t len) {
  pthread_once(&paths_once, compute_paths);
  if (paths_error[0] != '\0') {
    plugin_error("%s", paths_error);
    return -1;
  }
  snprintf(out, len, "%s", server_path);
  char *slash = strrchr(out, '/');
  if (slash != NULL)
    *slash = '\0';
  else
    snprintf(out, len, ".");
  return 0;
}

/* The ready server's handshake (protocol.h): its machine and its layout
 * of the shared area must be this plugin's. 0, or -1 with the process
 * stopped and the reason recorded. */
static int handshake_check(struct sim_device *dev) {
  uint32_t machine = dev->ctl->server_machine;
  uint32_t layout = dev->ctl->server_layout;
  if (machine == DEVICE_MACHINE && layout == SIMDEV_PROTO_LAYOUT)
    return 0;
  char why[200];
  if (machine != DEVICE_MACHINE)
    snprintf(why, sizeof why,
             "it runs machine %u (%s), this plugin drives %s devices", machine,
             machine == 62 ? "x86-64" : machine == 21 ? "ppc64le" : "unknown",
             DEVICE_MACHINE_NAME);
  else
    snprintf(why, sizeof why,
             "its layout of the shared control area is 0x%x, the plugin's "
             "is 0x%x (built from another protocol.h or for another ABI)",
             layout, SIMDEV_PROTO_LAYOUT);
  process_stop(dev);
  plugin_error("simdevice: device %d: the device process %s was refused: %s",
               dev->id, server_path, why);
  return -1;
}

/* Why the program's current user cannot run the supervisor, as far as this
 * process can tell (the starter only exits with a code): " (as uid N:
 * cause)", or "" when it could. */
static const char *exec_failure_cause(void) {
  static __thread char cause[160];
  if (faccessat(AT_FDCWD, supervisor_path, X_OK, AT_EACCESS) == 0)
    return "";
  snprintf(cause, sizeof cause, " (as uid %d: %s)", (int)geteuid(),
           strerror(errno));
  return cause;
}

/* The supervisor (the starter, once it exec'd) has exited without recording
 * a device's end: it could not set up the descriptors, start the device or
 * exec, or was killed. -1 with the error set then, else 0 (also when the
 * program reaped it first, with a wait for __WALL: the control area tells
 * how the start goes). wait_ms: as for pidfd_reap_child. */
static int starter_failed(struct sim_device *dev, int wait_ms) {
  int status;
  if (dev->supervisor_pid <= 0 ||
      !pidfd_reap_child(supervisor_pidfd(dev), &dev->supervisor_pid, wait_ms,
                        &status) ||
      atomic_load(&dev->ctl->server_exited) || status == -1 ||
      (WIFEXITED(status) && WEXITSTATUS(status) == 0))
    return 0;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (WIFSIGNALED(status))
    plugin_error("simdevice: cannot start device %d: the process starting "
                 "it was killed by signal %d (%s)",
                 dev->id, WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (code == STARTER_SUPERVISOR_EXEC_FAILED)
    plugin_error("simdevice: cannot start device %d: its supervisor could "
                 "not run: exec of %s failed%s",
                 dev->id, supervisor_path, exec_failure_cause());
  else
    plugin_error("simdevice: cannot start device %d: %s", dev->id,
                 code == 125 ? "fork of its supervisor failed"
                             : "setting up its descriptors failed");
  return -1;
}

/* 1 when this process runs under Valgrind: its client request where the
 * header was there to build with (a cross build's kit lacks it), else
 * Valgrind's preloaded libraries. Safe in a forked child (no allocation). */
static int under_valgrind(void) {
#if __has_include(<valgrind/valgrind.h>)
  return RUNNING_ON_VALGRIND != 0;
#else
  const char *preload = getenv("LD_PRELOAD");
  return preload != NULL && strstr(preload, "/vgpreload_") != NULL;
#endif
}

/* 1 when orphans of this process's descendants become its children: it
 * is PID 1 (of its pid namespace; a container's entrypoint) or a child
 * subreaper. */
static int adopts_orphans(void) {
  int subreaper = 0;
  return getpid() == 1 ||
         (prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&subreaper, 0UL, 0UL, 0UL) == 0 && subreaper);
}

/* 0 when device dev can start, or -1 after saying why not: the paths of
 * its programs are unknown, or the program closed or replaced a descriptor
 * the device process needs. */
static int launch_possible(struct sim_device *dev) {
  pthread_once(&paths_once, compute_paths);
  if (paths_error[0] != '\0') {
    plugin_error("%s", paths_error);
    return -1;
  }
  if (!fd_still_ours(&dev->mem_id) || !fd_still_ours(&dev->ctl_id)) {
    plugin_error("simdevice: cannot start device %d: the program closed or "
                 "replaced the descriptor of its %s (fd %d), which the "
                 "device process needs",
                 dev->id, fd_still_ours(&dev->mem_id) ? "control area" : "memory",
                 fd_still_ours(&dev->mem_id) ? dev->ctl_fd : dev->mem_fd);
    return -1;
  }
  return 0;
}

/* The control area as a new device process must find it. */
static void control_prepare(struct sim_device *dev) {
  struct simdev_control *ctl = dev->ctl;
  /* A restart clears what the last process left. A first start finds a
   * new memfd, zero already: clearing it would fault in its ~250 pages
   * (about 1 ms of the first target region where a page costs ~4 us). */
  if (!dev->ctl_zeroed)
    memset(ctl, 0, sizeof *ctl);
  dev->ctl_zeroed = 0;
  ctl->magic = SIMDEV_PROTO_MAGIC;
  ctl->version = SIMDEV_PROTO_VERSION;
  ctl->device_id = dev->id;
  ctl->guard = (uint32_t)dev->alloc.guard;
  ctl->valgrind_tool = (uint32_t)plugin_settings()->valgrind;
  ctl->valgrind_log = dev->valgrind_log_fd >= 0;
  ctl->slice_us = plugin_settings()->slice_us;
  ctl->dev_base = dev->dev_base;
  ctl->capacity = dev->alloc.capacity;
  ctl->bounce_offset = SIMDEV_BOUNCE_OFFSET;
  ctl->bounce_size = SIMDEV_BOUNCE_SIZE;

  ctl->host_pid = (int32_t)getpid();
}

/* The device process's command line in argv (MAX_WRAPPER_WORDS + 16
 * entries): [wrapper words...] [launcher words...] server. Returns the
 * executable the device process runs. */
static const char *device_command(char **argv) {
  const char *const *launcher = launcher_words();
  int argc = 0;
  for (int i = 0; i < wrapper_words; i++)
    argv[argc++] = wrapper_argv[i];
  for (int i = 0; launcher[i] != NULL && argc < MAX_WRAPPER_WORDS + 14; i++)
    argv[argc++] = (char *)launcher[i];
  argv[argc++] = server_path;
  argv[argc] = NULL;
  return wrapper_words > 0     ? wrapper_exe
         : launcher[0] != NULL ? launcher[0]
                               : server_path;
}

/* Starts the starter of device dev's process (its supervisor: simdevice-
 * server --supervise) with every signal blocked, handing it alive_fd (the
 * device's end of the pipe telling it the host lives) and supervisor_fd.
 * Its pid, or -1 with *spawn_errno set; *shared: it shared this process's
 * memory (start_sharing_memory), so it has exec'd or exited already. */
static pid_t starter_spawn(struct sim_device *dev, int alive_fd,
                           int supervisor_fd, int *shared, int *spawn_errno) {
  char *argv[MAX_WRAPPER_WORDS + 16];
  const char *device_exe = device_command(argv);
  char *supervisor_argv[] = {supervisor_path, "--supervise", NULL};
  /* Device code built with a sanitizer: its runtime comes first. */
  char **san_env = NULL;
  if (dev->sanitizer_runtime[0] != '\0' &&
      (san_env = sanitizer_environment(dev->sanitizer_runtime)) == NULL) {
    *shared = 0;
    *spawn_errno = ENOMEM;
    return -1;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  volatile int supervisor_failed = 0;
  struct starter_args args = {
      .ctl = dev->ctl, .ctl_fd = dev->ctl_fd, .mem_fd = dev->mem_fd,
      .alive_fd = alive_fd, .supervisor_fd = supervisor_fd,
      .valgrind_log_fd = plugin_settings()->valgrind == VALGRIND_NONE ? -1
                         : dev->valgrind_log_fd >= 0 ? dev->valgrind_log_fd
                                                     : STDERR_FILENO,
      .device_exe = device_exe, .device_argv = argv,
      .device_envp = san_env != NULL ? san_env : environ,
      .supervisor_argv = supervisor_argv, .mask = &old,
      .supervisor_failed = &supervisor_failed,
      .host_view = dev->host_view, .host_view_bytes = dev->capacity};
  /* A program that is PID 1 or a child subreaper would adopt an orphaned
   * supervisor, which, exec'd, its wait() would see: there the starter is
   * the supervisor, a forked copy of the host that never execs (so its
   * exit signal stays 0) and is reaped here. That costs the fork's copy of
   * the host's page tables, in such programs only. */
  args.keep_supervisor = adopts_orphans();
  pid_t starter = SIM_FAULT(SPAWN) ? (errno = EAGAIN, -1)
                  : args.keep_supervisor ? (errno = EINVAL, -1)
                                         : start_sharing_memory(&args);
  *shared = starter > 0;
  if (starter < 0 && errno == EINVAL) {
    /* Like fork(), but exit signal 0 and no fork handlers (top of file).
     * qemu user mode refuses any exit signal but SIGCHLD (EINVAL): there
     * the program sees one SIGCHLD per device start. */
    starter = (pid_t)syscall(SYS_clone, 0ul, NULL, NULL, NULL, 0ul);
    if (starter < 0 && errno == EINVAL)
      starter = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL,
                               NULL, 0ul);
    if (starter == 0) {
      /* A copy of the host needs none of device memory. Under Valgrind
       * its end runs memcheck's leak search, which read all of the view
       * (each page it reads is a page allocated in the memfd: 1 GiB per
       * device start, the default size there). Elsewhere the view stays:
       * under qemu user mode unmapping it was 3 s of each device start
       * (qemu walks its page flags one guest page at a time). */
      if (args.host_view != NULL && under_valgrind())
        munmap(args.host_view, args.host_view_bytes);
      args.shares_host_memory = args.fail_supervisor_exec = 0;
      start_supervisor(&args);
    }
  }
  /* (A starter sharing memory may have written this thread's errno.) */
  *spawn_errno = starter < 0 ? errno : 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  /* The device process has exec'd (a starter sharing memory returns after
   * that) or has a copy of its own. */
  if (san_env != NULL) {
    free(san_env[0]);
    free(san_env[1]);
    free(san_env);
  }
  return starter;
}

/* Device dev's new process has started: keep the host's ends of its pipes
 * and forget the state of the last one. */
static void process_adopt(struct sim_device *dev, int alive_fd,
                          int supervisor_fd) {
  dev->host_alive_fd = alive_fd;
  fd_remember(&dev->alive_id, alive_fd);
  fd_close_if_ours(&dev->supervisor_fd, &dev->supervisor_fd_id);
  dev->supervisor_fd = supervisor_fd;
  fd_remember(&dev->supervisor_fd_id, supervisor_fd);
  dev->kill_reason[0] = '\0';
  dev->stop_reported = 0;
  dev->pid = 0;
  dev->reaped = 0;
  dev->dead = 0;
  dev->queue_threads = 0; /* a new process starts its own on first use */
}

int process_launch(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (launch_possible(dev) != 0)
    return -1;
  valgrind_log_open(dev);
  control_prepare(dev);
  credentials_capture(&dev->cred); /* what the new process inherits */
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) {
    plugin_error("simdevice: cannot start device %d: no pipe: %s", dev->id,
                 strerror(errno));
    return -1;
  }
  collect_supervisor(dev, 1000); /* the last process's, if still there */
  int supervisor[2];
  if (pipe2(supervisor, O_CLOEXEC) != 0) {
    close(alive[0]);
    close(alive[1]);
    plugin_error("simdevice: cannot start device %d: no pipe: %s", dev->id,
                 strerror(errno));
    return -1;
  }
  int shared, spawn_errno;
  pid_t starter =
      starter_spawn(dev, alive[0], supervisor[1], &shared, &spawn_errno);
  close(alive[0]);
  close(supervisor[1]);
  if (starter < 0)
    plugin_error("simdevice: cannot start device %d: %s", dev->id,
                 strerror(spawn_errno));
  /* The starter is the supervisor: a child of this process with exit
   * signal 0 for the device's whole life (wait() and SIGCHLD never see it,
   * and it is never an orphan that a subreaper or PID 1 would inherit),
   * reaped through its pidfd when the device has ended. A forked one's
   * failure is found in process_await; one that shared memory has exec'd
   * or exited already: how it went is known now. */
  dev->supervisor_pid = starter > 0 ? starter : 0;
  dev->supervisor_pidfd = pidfd_of(dev->supervisor_pid);
  fd_remember(&dev->supervisor_pidfd_id, dev->supervisor_pidfd);
  /* One that shared memory has called _exit when its vfork returns, but
   * until its exit completes its child, the supervisor, is no orphan yet:
   * a program that made itself a child subreaper meanwhile (main's first
   * call, device 0 having started before main) then adopted it, and its
   * wait() reaped it (subreaper_wait_all.c: 1 run in 100-250 beside a busy
   * loop). So it is reaped now, waiting the moment that takes. */
  if (starter < 0 || (shared && starter_failed(dev, -1) != 0)) {
    collect_supervisor(dev, 0);
    close(alive[1]);
    close(supervisor[0]);
    return -1;
  }
  process_adopt(dev, alive[1], supervisor[0]);
  return 0;
}

int process_await(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct simdev_control *ctl = dev->ctl;
  /* Wait for the server to report ready; a wrapper such as valgrind makes
   * the start slow, so the limit is generous. */
  for (int waited_ms = 0;; waited_ms += 100) {
    uint32_t ready = atomic_load(&ctl->server_ready);
    if (starter_failed(dev, 0) != 0) {
      close_liveness(dev);
      return -1;
    }
    if (dev->pid == 0 && atomic_load(&ctl->server_pid) > 0) {
      dev->pid = atomic_load(&ctl->server_pid);
      /* Its supervisor keeps it unreaped until server_exited is set: a
       * pidfd opened before that is the device's (server/supervise.c). */
      dev->pidfd = pidfd_of(dev->pid);
      fd_remember(&dev->pidfd_id, dev->pidfd);
    }
    if (dev->pid == 0 && atomic_load(&ctl->server_exited)) {
      dev->pid = -1; /* never started: exit_status says why */
      dev->reaped = 1;
      dev->wait_status = ctl->exit_status;
    }
    if (ready == 1 && dev->pid > 0) {
      /* A starter that is not the supervisor has forked it and is exiting
       * by now: reaped here, not left (its pidfd open, a zombie child of
       * the program) until the next start or stop, which under qemu user
       * mode it outlived (one descriptor more after restarts). */
      if (!adopts_orphans())
        collect_supervisor(dev, 1000);
      return handshake_check(dev);
    }
    if (ready == 2) {
      plugin_error("simdevice: device %d failed to start: %.400s", dev->id,
                   ctl->setup_error);
      process_reap(dev, NULL);
      return -1;
    }
    if (dev->pid != 0 && process_gone(dev)) {
      process_reap(dev, NULL);
      plugin_error("simdevice: device %d failed to start %s: %s", dev->id,
                   server_path, dev->death_cause);
      return -1;
    }
    if (waited_ms >= 60000) {
      if (dev->pid > 0)
        end_process(dev);
      process_reap(dev, NULL);
      plugin_error("simdevice: device %d: %s did not start within 60 s",
                   dev->id, server_path);
      return -1;
    }
    if (ready != 0) { /* ready, but its pid is not published yet */
      sleep_ms(1);
      waited_ms -= 99;
      continue;
    }
    struct timespec t = {.tv_sec = 0, .tv_nsec = 100 * 1000000L};
    syscall(SYS_futex, (uint32_t *)&ctl->server_ready, FUTEX_WAIT, 0, &t,
            NULL, 0);
  }
}

int process_settle(struct sim_device *dev) {
  if (process_await(dev) != 0)
    return -1;
  dev->pid = 0; /* process_stop then only closes the liveness pipe */
  return 0;
}

/* In the starter, before the execs: a root program's exec regains every
 * capability of the bounding set, so one that gave some up (capset) would
 * have a device with more than it has, and a gain of privileges would make
 * the exec clear ADDR_NO_RANDOMIZE (images at other addresses after a
 * restart). The bounding set is cut to the program's permitted set. */
static void bound_to_permitted(void) {
  if (geteuid() != 0)
    return;
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capget, &h, d) != 0)
    return;
  uint64_t permitted = d[0].permitted | (uint64_t)d[1].permitted << 32;
  for (int c = 0; c < 64; c++)
    if (!(permitted & (1ull << c)) && prctl(PR_CAPBSET_READ, (unsigned long)c, 0UL, 0UL, 0UL) == 1)
      prctl(PR_CAPBSET_DROP, (unsigned long)c, 0UL, 0UL, 0UL);
}

/* Packs capget's two 32-bit words of one set into 64 bits. */
static uint64_t caps64(const uint32_t caps[6], int set) {
  return (uint64_t)caps[set] | (uint64_t)caps[3 + set] << 32;
}

/* Sends the program's credentials `now` to the device process, which takes
 * them (server/credentials.c). 0 when it holds exactly `now` afterwards,
 * capabilities included; -1 otherwise (error recorded). */
static int credentials_send(struct sim_device *dev,
                            const struct credentials *now) {
  struct simdev_slot *s = &dev->ctl->slot;
  for (int i = 0; i < 3; i++) {
    s->a[i] = now->uid[i];
    s->a[3 + i] = now->gid[i];
  }
  int n = now->ngroups > 0 ? now->ngroups : 0;
  s->a[6] = (uint64_t)n;
  for (int i = 0; i < n; i++)
    ((uint32_t *)dev->bounce)[i] = (uint32_t)now->groups[i];
  if (channel_send(dev, SIMDEV_CMD_CREDENTIALS, NULL) != 0)
    return -1;
  /* capget's sets: effective words 0/3, permitted 1/4, inheritable 2/5 */
  if (s->a[0] != caps64(now->caps, 0) || s->a[1] != caps64(now->caps, 1) ||
      s->a[2] != caps64(now->caps, 2)) {
    plugin_error("simdevice: device %d took the program's user and group "
                 "ids but holds other capabilities (effective 0x%llx, the "
                 "program's 0x%llx)",
                 dev->id, (unsigned long long)s->a[0],
                 (unsigned long long)caps64(now->caps, 0));
    return -1;
  }
  return 0;
}

int process_follow_credentials(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  struct credentials now;
  if (dev->pid <= 0 || !credentials_changed(&dev->cred, &now))
    return 0;
  if (credentials_send(dev, &now) == 0) {
    dev->cred = now;
    return 0;
  }
  /* It could not (capabilities set by hand, a server that could not take
   * the ids): a new process inherits them; device memory is kept. */
  __tgt_rtl_error err;
  plugin_error_take(&err);
  process_stop(dev);
  snprintf(dev->death_cause, sizeof dev->death_cause,
           "device %d was ended to start with the program's new credentials "
           "(uid %d, gid %d), which it could not take (%.300s)",
           dev->id, (int)now.uid[1], (int)now.gid[1], err.message);
  dev->dead = 1;
  atomic_fetch_add(&dev->death_epoch, 1);
  return 1;
}

int process_start(struct sim_device *dev) {
  return process_launch(dev) != 0 ? -1 : process_await(dev);
}

/* SIMDEVICE_VALGRIND: a device process that ended with Valgrind's error
 * status had its tool report errors (above, on stderr): said once more at
 * the end, and written as a finding for simtarget-check. */
static void valgrind_verdict(struct sim_device *dev) {
  int tool = plugin_settings()->valgrind;
  if (tool == VALGRIND_NONE || !dev->reaped || dev->wait_status == -1 ||
      !WIFEXITED(dev->wait_status) ||
      WEXITSTATUS(dev->wait_status) != VALGRIND_ERROR_EXIT)
    return;
  static const char *const names[] = {"", "memcheck", "helgrind", "drd"};
  char message[200];
  snprintf(message, sizeof message,
           "Valgrind's %s reported errors in device %d's process (its "
           "report is on stderr above)",
           names[tool], dev->id);
  fprintf(stderr, "simdevice: %s\n", message);
  struct check_finding f = {.check = names[tool],
                            .rule = "valgrind-errors",
                            .message = message};
  if (check_finding_write(&f) < 0)
    fprintf(stderr, "simdevice: cannot write the finding to %s: %s\n",
            CHECK_REPORT_ENV, strerror(errno));
}

void process_stop(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (starter_failed(dev, 0) != 0) { /* an early start that never got going */
    __tgt_rtl_error ignored;
    plugin_error_take(&ignored);
  }
  if (dev->pid <= 0 || process_gone(dev))
    goto out_forget;
  if (!dev->dead && channel_send(dev, SIMDEV_CMD_EXIT, NULL) == 0) {
    /* Valgrind writes its summary as the process ends, and so may any
     * wrapper (SIMDEVICE_WRAPPER): give them time; a kill would lose it. */
    const struct plugin_settings *set = plugin_settings();
    int tries = set->valgrind != VALGRIND_NONE || set->wrapper != NULL ? 6000 : 100;
    for (int i = 0; i < tries && !process_gone(dev); i++)
      sleep_ms(10);
    if (process_gone(dev))
      valgrind_log_finish(dev); /* before the verdict that points at it */
    valgrind_verdict(dev);
  } else if (!dev->dead) {
    __tgt_rtl_error err;
    plugin_error_take(&err);
    fprintf(stderr, "simdevice: device %d (pid %d) did not take the exit "
            "command (%.400s); it is killed instead\n",
            dev->id, (int)dev->pid, err.message);
  }
  if (!process_gone(dev)) {
    end_process(dev);
    while (!process_gone(dev))
      sleep_ms(1);
  }
out_forget:
  valgrind_log_finish(dev);
  close_liveness(dev);
  /* An early start never waited for ends on the pipe's EOF (within
   * milliseconds), and so does its supervisor: reaped here too, not left a
   * zombie child of the program (in a subreaper, where the starter
   * supervises, a program whose images are all for the ppc64le device
   * released the unused x86-64 device 0 so, and its wait loop saw it). */
  collect_supervisor(dev, 1000);
  dev->pid = 0;
}

/* The one-letter state of the process in /proc/<pid>/stat, or '?'. */
static char process_state(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return '?';
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return '?';
  buf[n] = '\0';
  const char *paren = strrchr(buf, ')'); /* the name may hold spaces */
  return paren != NULL && paren[1] == ' ' ? paren[2] : '?';
}

int process_watch(struct sim_device *dev, const char *kernel,
                  int64_t waited_ns) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (dev->pid <= 0 || dev->dead)
    return 0;
  unsigned limit = plugin_settings()->timeout_s;
  if (kernel != NULL && limit > 0 && waited_ns >= (int64_t)limit * 1000000000ll) {
    snprintf(dev->kill_reason, sizeof dev->kill_reason,
             "kernel `%.256s` did not finish within %u s (SIMDEVICE_TIMEOUT=%u): "
             "device %d (pid %d) was ended and restarts on its next use",
             kernel, limit, limit, dev->id, (int)dev->pid);
    end_process(dev);
    process_reap(dev, kernel);
    dev->kill_reason[0] = '\0';
    return -1;
  }
  char state = pidfd_ended(dev->pidfd, dev->pid) ? '?'
                                                : process_state(dev->pid);
  if (state == 'T' || state == 't') {
    if (!dev->stop_reported)
      fprintf(stderr,
              "simdevice: device %d (pid %d) is stopped (SIGSTOP or a "
              "debugger)%s%s%s; waiting for it to continue (kill -CONT %d)\n",
              dev->id, (int)dev->pid, kernel ? " while kernel `" : "",
              kernel ? kernel : "", kernel ? "` runs" : "", (int)dev->pid);
    dev->stop_reported = 1;
    return 1;
  }
  dev->stop_reported = 0;
  return 0;
}

/* In a fork() child: the supervisor is the parent's child. */
static void forget_supervisor(struct sim_device *dev) {
  fd_close_if_ours(&dev->supervisor_pidfd, &dev->supervisor_pidfd_id);
  dev->supervisor_pid = 0;
  /* the parent shows its process's reports */
  fd_close_if_ours(&dev->valgrind_log_fd, &dev->valgrind_log_id);
}

void process_forget_launch_after_fork(struct sim_device *dev) {
  /* Started early by the parent, never used: the child's copies of the
   * pipes go (the parent's device must still see the parent's end), and the
   * child starts its own device on first use. */
  close_liveness(dev);
  forget_supervisor(dev);
  dev->pid = 0;
}

void process_forget_after_fork(struct sim_device *dev) {
  /* The parent's process is not ours: never signal, wait for or talk to
   * it. Our copies of its mappings and descriptors go at teardown. */
  close_liveness(dev);
  forget_supervisor(dev);
  dev->pid = 0;
  dev->reaped = 1;
  dev->inherited = 1;
  dev->owner_pid = getppid();
}
