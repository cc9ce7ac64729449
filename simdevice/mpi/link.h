/*
 * link.h - the host side's MPI link to its device ranks (link.c): bringing
 * MPI up (or finding the program's), spawning or finding the ranks, one
 * request/reply with a device rank, and closing it all at the right time.
 */
#ifndef SIMDEVICE_MPI_LINK_H
#define SIMDEVICE_MPI_LINK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "omptarget.h"
#include "omptarget_plugin.h"
#include "topology.h"
#include "wire.h"

#define HIDDEN __attribute__((visibility("hidden")))

struct host_image;

struct remote {
  int index;             /* the plugin's device number */
  pthread_mutex_t lock;  /* one call at a time on this device */
  int rank;              /* in the link's communicator */
  int hello;             /* the rank knows its device (WIRE_HELLO done) */
  int lost;              /* the rank died or hung: every call fails */
  char lost_cause[400];
  pid_t pid;             /* the rank's process, on `host` */
  char host[256];
  int pidfd;             /* when on this machine: its pidfd, else -1 */
  struct host_image *images;
  /* The device's memory range, reserved (inaccessible) in the host's
   * address space once the device is initialised (host.c): mem_size is
   * set last (release), 0 while there is none. */
  uint64_t mem_base;
  _Atomic uint64_t mem_size;
};

/* The error of the calling thread's last failure (get_last_error). */
HIDDEN void link_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
HIDDEN void link_error_set(const __tgt_rtl_error *e);
HIDDEN void link_error_take(__tgt_rtl_error *out);

HIDDEN void link_configure(int program_uses_mpi, uint32_t info_flags);
HIDDEN const struct topology *link_topology(void);
HIDDEN uint32_t link_info_flags(void); /* LIBOMPTARGET_INFO, as handed over */
HIDDEN void link_set_info_flags(uint32_t flags);
HIDDEN struct remote *link_remote(int32_t id); /* NULL with an error */
/* MPI up and the device ranks reachable (once; any thread). 0 or -1. */
HIDDEN int link_up(void);
/* Device `r` knows it serves us (WIRE_HELLO), under r->lock. 0 or -1. */
HIDDEN int link_hello(struct remote *r);
/* Sends a request (and its payload), under r->lock. 0 or -1. */
HIDDEN int link_send(struct remote *r, struct wire_request *q,
                     const void *payload, const char *what);
/* Waits for the reply to the request sent last: its data (up to in_len
 * bytes) into `in`, device output to stdout, results into a_out (may be
 * NULL; those that come last when the reply says a_last, wire.h). Returns the reply's rc (the error recorded on failure). */
HIDDEN int link_finish(struct remote *r, void *in, size_t in_len,
                       uint64_t a_out[2], const char *what);
/* link_send + link_finish. */
HIDDEN int link_call(struct remote *r, struct wire_request *q,
                     const void *payload, void *in, size_t in_len,
                     uint64_t a_out[2], const char *what);
/* Tells every device rank to end, then releases what the plugin set up
 * (the spawned ranks' communicator, MPI when the plugin initialised it).
 * Idempotent. */
HIDDEN void link_close(void);
/* r->lock for a release at exit (unload, deinit, link_close): waits at
 * most 2 s in all, for every device together; then the rank is given up
 * (killed when on this machine) and -1 returned with the error set. */
HIDDEN int link_lock_for_exit(struct remote *r);
/* 1 once link_close ran: the devices are released (their images unloaded
 * with them), so the release calls that follow have nothing to do. */
HIDDEN int link_closed(void);

#endif
