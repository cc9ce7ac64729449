/*
 * wire_wait.h - MPI transfers for both ends of simdevice-mpi (wire.c):
 * waits that poll with a growing sleep instead of Open MPI's busy wait (a
 * device rank waits for its host most of its life, and on a machine with
 * few cores a spinning rank takes the CPU from the program), and copies
 * split into WIRE_CHUNK pieces (an MPI count is an int).
 */
#ifndef SIMDEVICE_MPI_WIRE_WAIT_H
#define SIMDEVICE_MPI_WIRE_WAIT_H

#include <mpi.h>
#include <stddef.h>

#define WIRE_HIDDEN __attribute__((visibility("hidden")))

/* Waits for `req`. `check` (may be NULL) is called about every 100 ms of
 * waiting; when it returns nonzero the request is cancelled and the wait
 * returns -1. 0 once the request completed (*st filled when not NULL). */
WIRE_HIDDEN int wire_wait(MPI_Request *req, MPI_Status *st,
                          int (*check)(void *ctx), void *ctx);
/* A receive of exactly `len` bytes, waited as wire_wait. */
WIRE_HIDDEN int wire_recv_wait(void *buf, size_t len, int src, int tag,
                               MPI_Comm comm, MPI_Status *st);
/* Sends / receives `len` bytes as pieces of at most WIRE_CHUNK. A receive
 * into NULL drops the bytes. 0, or -1 when `check` gave up. */
WIRE_HIDDEN int wire_send_bytes(const void *buf, size_t len, int dst, int tag,
                                MPI_Comm comm);
WIRE_HIDDEN int wire_recv_bytes_checked(void *buf, size_t len, int src,
                                        int tag, MPI_Comm comm,
                                        int (*check)(void *ctx), void *ctx);
static inline int wire_recv_bytes(void *buf, size_t len, int src, int tag,
                                  MPI_Comm comm) {
  return wire_recv_bytes_checked(buf, len, src, tag, comm, NULL, NULL);
}

#endif
