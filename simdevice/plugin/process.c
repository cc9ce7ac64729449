/*
 * process.c - the device process's life: start (fork + exec of
 * simdevice-server with ASLR off and the two memfds on fds 3 and 4), death
 * detection without blocking, and a clean stop.
 *
 * Locking: every function runs under the device's channel_lock (asserted).
 * The server path and wrapper (settings.c) are resolved once under
 * pthread_once.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin_faults.h"
#include "lock_check.h"
#include "plugin_internal.h"

extern char **environ;

#define MAX_WRAPPER_WORDS 32
static pthread_once_t paths_once = PTHREAD_ONCE_INIT;
static char server_path[PATH_MAX];
static char wrapper_buf[4096];
static char *wrapper_argv[MAX_WRAPPER_WORDS + 1];
static char wrapper_exe[PATH_MAX];
static int wrapper_words;
static char paths_error[512];

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

static void compute_paths(void) {
  const struct plugin_settings *set = plugin_settings();
  if (set->server != NULL) {
    snprintf(server_path, sizeof server_path, "%s", set->server);
  } else {
    Dl_info info;
    if (dladdr((void *)__tgt_rtl_init_device, &info) == 0 ||
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
    snprintf(server_path, sizeof server_path, "%.4000s/simdevice/simdevice-server",
             dir);
  }
  if (access(server_path, X_OK) != 0) {
    snprintf(paths_error, sizeof paths_error,
             "simdevice: the device server %.300s cannot be run: %s (set "
             "SIMDEVICE_SERVER)",
             server_path, strerror(errno));
    return;
  }
  if (set->wrapper != NULL) {
    snprintf(wrapper_buf, sizeof wrapper_buf, "%s", set->wrapper);
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

/* In the child: only system calls (the parent may have other threads). */
static void exec_server(int ctl_fd, int mem_fd, char *const argv[],
                        const char *exe) {
  int ctl_high = fcntl(ctl_fd, F_DUPFD, 10);
  int mem_high = fcntl(mem_fd, F_DUPFD, 10);
  if (ctl_high < 0 || mem_high < 0 || dup2(ctl_high, SIMDEV_FD_CONTROL) < 0 ||
      dup2(mem_high, SIMDEV_FD_MEMORY) < 0)
    _exit(126);
  syscall(SYS_close_range, SIMDEV_FD_MEMORY + 1, ~0u, 0);
  /* Same images at the same addresses after a restart. */
  int persona = personality(0xffffffff);
  if (persona != -1)
    personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
  execve(exe, argv, environ);
  _exit(127);
}

static void sleep_ms(long ms) {
  struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

int process_gone(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (dev->pid <= 0)
    return 1;
  if (dev->reaped)
    return 1;
  int status = 0;
  pid_t r;
  do
    r = waitpid(dev->pid, &status, WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == 0)
    return 0;
  dev->reaped = 1;
  dev->wait_status = r == dev->pid ? status : -1;
  return 1;
}

void process_reap(struct sim_device *dev, const char *kernel) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  /* A faulting server is already in _exit: give it 2 s, then kill it. */
  for (int i = 0; i < 200 && !process_gone(dev); i++)
    sleep_ms(10);
  if (!process_gone(dev)) {
    kill(dev->pid, SIGKILL);
    while (!process_gone(dev))
      sleep_ms(1);
  }
  char during[320] = "";
  if (kernel != NULL)
    snprintf(during, sizeof during, " during kernel `%s`", kernel);
  int st = dev->wait_status;
  if (st == -1)
    snprintf(dev->death_cause, sizeof dev->death_cause,
             "device %d (pid %d) ended%s; its exit status was collected by "
             "someone else",
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

int process_start(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  pthread_once(&paths_once, compute_paths);
  if (paths_error[0] != '\0') {
    plugin_error("%s", paths_error);
    return -1;
  }
  struct simdev_control *ctl = dev->ctl;
  memset(ctl, 0, sizeof *ctl);
  ctl->magic = SIMDEV_PROTO_MAGIC;
  ctl->version = SIMDEV_PROTO_VERSION;
  ctl->device_id = dev->id;
  ctl->guard = (uint32_t)dev->alloc.guard;
  ctl->dev_base = dev->dev_base;
  ctl->capacity = dev->alloc.capacity;
  ctl->bounce_offset = SIMDEV_BOUNCE_OFFSET;
  ctl->bounce_size = SIMDEV_BOUNCE_SIZE;

  char *argv[MAX_WRAPPER_WORDS + 2];
  int argc = 0;
  for (int i = 0; i < wrapper_words; i++)
    argv[argc++] = wrapper_argv[i];
  argv[argc++] = server_path;
  argv[argc] = NULL;
  const char *exe = wrapper_words > 0 ? wrapper_exe : server_path;

  pid_t pid = SIM_FAULT(SPAWN) ? (errno = EAGAIN, -1) : fork();
  if (pid < 0) {
    plugin_error("simdevice: cannot start device %d: fork failed: %s", dev->id,
                 strerror(errno));
    return -1;
  }
  if (pid == 0)
    exec_server(dev->ctl_fd, dev->mem_fd, argv, exe);
  dev->pid = pid;
  dev->reaped = 0;
  dev->dead = 0;
  dev->queue_threads = 0; /* a new process starts its own on first use */

  /* Wait for the server to report ready; a wrapper such as valgrind makes
   * the start slow, so the limit is generous. */
  for (int waited_ms = 0;; waited_ms += 100) {
    uint32_t ready = atomic_load(&ctl->server_ready);
    if (ready == 1)
      return 0;
    if (ready == 2) {
      plugin_error("simdevice: device %d failed to start: %.400s", dev->id,
                   ctl->setup_error);
      process_reap(dev, NULL);
      return -1;
    }
    if (process_gone(dev)) {
      process_reap(dev, NULL);
      plugin_error("simdevice: device %d failed to start %s: %s", dev->id,
                   server_path, dev->death_cause);
      return -1;
    }
    if (waited_ms >= 60000) {
      kill(dev->pid, SIGKILL);
      process_reap(dev, NULL);
      plugin_error("simdevice: device %d: %s did not start within 60 s",
                   dev->id, server_path);
      return -1;
    }
    struct timespec t = {.tv_sec = 0, .tv_nsec = 100 * 1000000L};
    syscall(SYS_futex, (uint32_t *)&ctl->server_ready, FUTEX_WAIT, 0, &t,
            NULL, 0);
  }
}

void process_stop(struct sim_device *dev) {
  LOCK_ASSERT_HELD(&dev->channel_lock);
  if (dev->pid <= 0 || process_gone(dev))
    goto out_forget;
  if (!dev->dead && channel_send(dev, SIMDEV_CMD_EXIT, NULL) == 0) {
    for (int i = 0; i < 100 && !process_gone(dev); i++)
      sleep_ms(10);
  } else if (!dev->dead) {
    __tgt_rtl_error err;
    plugin_error_take(&err);
    fprintf(stderr, "simdevice: device %d (pid %d) did not take the exit "
            "command (%.400s); it is killed instead\n",
            dev->id, (int)dev->pid, err.message);
  }
  if (!process_gone(dev)) {
    kill(dev->pid, SIGKILL);
    while (!process_gone(dev))
      sleep_ms(1);
  }
out_forget:
  dev->pid = 0;
}
