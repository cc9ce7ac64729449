/*
 * server.h - internals of simdevice-server, the device process.
 *
 * Threads and locks: one server thread (main) serves the command slot and runs
 * kernels; the device runtime may start worker threads that run kernel code.
 * The image table is written only while serving LOAD/UNLOAD, when no kernel
 * runs, so the fault handler may read it without a lock.
 */
#ifndef SIMDEVICE_SERVER_H
#define SIMDEVICE_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../protocol.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The device runtime's launch API, found with dlsym (simdev_rt.h). */
struct server_runtime {
  int (*call)(void *fn, int nargs, const uint64_t *args);
  int (*kernel_begin)(int32_t num_teams, int32_t thread_limit);
  void (*kernel_end)(void);
  void (*limits)(int32_t *max_teams, int32_t *max_threads);
  void (*set_device_num)(int32_t num);
};

/* images.c: staging, dlopen and entry resolution. Each returns 0 on success,
 * or -1 with the reason written to `msg`. */
HIDDEN int images_stage(const void *bytes, size_t size, int start_new,
                        char *msg, size_t msg_len);
HIDDEN int images_load(const char *names, uint64_t name_count,
                       size_t names_len, uint64_t *addrs_out,
                       uint64_t *image_id_out, char *msg, size_t msg_len);
HIDDEN int images_unload(uint64_t image_id, char *msg, size_t msg_len);
HIDDEN void images_unload_all(void);
/* The host entry name of a device address, or NULL; async-signal-safe. */
HIDDEN const char *images_entry_name(uint64_t addr);

/* faults.c: catch SIGSEGV/SIGBUS/SIGILL/SIGFPE, record them in the control
 * area, wake the host and exit. */
HIDDEN int faults_install(struct simdev_control *ctl, char *msg, size_t len);
/* The kernel now running on this process (0 when none). */
HIDDEN void faults_set_running_kernel(uint64_t fn);

/* indirect.c: the declare target indirect table (SIMDEV_CMD_FPTR_MAP). */
HIDDEN int indirect_store(const struct simdev_fptr_row *rows, uint64_t count,
                          uint64_t at, uint64_t total, char *msg, size_t len);
/* The device function for host function `host`, or 0; async-signal-safe. */
HIDDEN uint64_t indirect_lookup(uint64_t host);
/* Keep the host's code addresses unmapped here (reserved inaccessible), so
 * that calling one faults; called once before anything is loaded. */
HIDDEN void indirect_guard_host_code(pid_t host, int device_id);

/* futex helpers on shared (not process-private) words. */
HIDDEN void server_futex_wake(_Atomic uint32_t *word);

#endif
