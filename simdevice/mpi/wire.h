/*
 * wire.h - the messages between the simdevice-mpi plugin (the host rank,
 * host.c) and simdevice-mpi-server (a device rank, server.c). Both include
 * this file; the layout is the protocol (same machine type on both ends).
 *
 * A device rank serves one device. It runs the local simdevice plugin
 * (libomptarget.rtl.simdevice.so) in its own process, so everything a local
 * device does (device processes, images, the device runtime, guard pages,
 * faults and their messages, restarts, SIMDEVICE_TIMEOUT, printf) is the
 * same code; what differs is the transport (MPI messages instead of the
 * shared command slot) and who owns device memory (the device rank: the
 * host never maps it, data travels in messages).
 *
 * Each call is one request, WIRE_TAG_REQUEST: struct wire_request, then,
 * when req.payload > 0, one more message of that many bytes (the same tag).
 * The answer is WIRE_TAG_REPLY: struct wire_reply, then reply.payload bytes
 * (data read), then reply.output bytes (what device code printed on stdout
 * while the call ran, which the host writes to its own stdout, so it lands
 * in program order), then, when reply.a_last, the results a[] once more.
 * Times (OMPT device tracing, time_next_op) are the rank's CLOCK_MONOTONIC
 * in ns: comparable with the host's on the same machine only. Calls of one device never overlap (the host's device
 * lock). A copy between two device ranks goes rank to rank: the source
 * sends WIRE_TAG_PEER to the destination.
 */
#ifndef SIMDEVICE_MPI_WIRE_H
#define SIMDEVICE_MPI_WIRE_H

#include <stdint.h>

#include "omptarget_plugin.h"

#define WIRE_MAGIC 0x534d5049u /* "SMPI" */
#define WIRE_TAG_REQUEST 7301
#define WIRE_TAG_REPLY 7302
#define WIRE_TAG_PEER 7303
/* Bytes of one data message; larger copies are sent in pieces. */
#define WIRE_CHUNK (64u << 20)

enum wire_op {
  WIRE_HELLO = 1,      /* a[0] = device index, a[1] = info flags; payload:
                          "NAME=VALUE\0" settings for the device's plugin;
                          reply a[0] = pid, payload = host name, NUL,
                          machine_id (machine.h), NUL */
  WIRE_INIT_DEVICE,    /* reply a[0] = base, a[1] = bytes of the device's
                          memory range (0 0: unknown) */
  WIRE_LOAD_BINARY,    /* a[0] = host image id, a[1] = image bytes, a[2] =
                          entry count; payload: image, then per entry
                          struct wire_entry + name; reply payload: u64 device
                          address per entry */
  WIRE_UNLOAD_BINARY,  /* a[0] = host image id */
  WIRE_DATA_ALLOC,     /* a[0] = size, a[1] = host pointer, a[2] = kind;
                          reply a[0] = device pointer */
  WIRE_DATA_DELETE,    /* a[0] = device pointer */
  WIRE_DATA_SUBMIT,    /* a[0] = device pointer, a[1] = size, a[5] = 1:
                          timed (reply a[0], a[1] = its start and end on
                          the rank: from the data's first byte awaited to
                          its last in device memory); payload data */
  WIRE_DATA_RETRIEVE,  /* a[0] = device pointer, a[1] = size, a[5] = 1:
                          timed (the reply's a comes last, `a_last`: from
                          the request's arrival to the data sent); reply
                          payload */
  WIRE_SEND_TO_PEER,   /* a[0] = device pointer, a[1] = size, a[2] = peer
                          rank (of the host's communicator with the device
                          ranks): read, then send it there (WIRE_TAG_PEER) */
  WIRE_RECV_FROM_PEER, /* a[0] = device pointer, a[1] = size, a[2] = peer
                          rank: receive, then write */
  WIRE_RUN,            /* a[0] = entry, a[1] = arg count, a[2] = num_teams,
                          a[3] = thread_limit, a[4] = KernelArgs version
                          (run_target_kernel; 0: an older entry point),
                          a[5] = 1: timed (reply a[0], a[1] = the kernel's
                          start and end, stamped by the device process);
                          payload: u64 per argument */
  WIRE_FPTR_MAP,       /* a[0] = rows; payload: __tgt_fptr_map rows */
  WIRE_PRINT_INFO,     /* print_device_info (its lines come back as output) */
  WIRE_DEINIT_DEVICE,
  WIRE_EXIT,           /* reply, then the rank ends */
  WIRE_NAME_RANGE,     /* a[0] = device pointer, a[1] = size; payload: the
                          text, NUL-terminated; reply a[0] = name_range's
                          result (1: names are not used) */
};

struct wire_request {
  uint32_t magic;
  uint32_t op;
  uint64_t a[6];
  uint64_t payload; /* bytes of the message that follows, 0: none */
};

struct wire_reply {
  int32_t rc;      /* OFFLOAD_SUCCESS or OFFLOAD_FAIL */
  int32_t has_error;
  uint64_t a[2];
  uint64_t payload; /* bytes of data that follow */
  uint64_t output;  /* bytes of device stdout that follow the data */
  uint64_t a_last;  /* 1: a[] comes again, as 16 bytes after the output,
                       and that is the result (a timed retrieve's end) */
  __tgt_rtl_error error; /* the device plugin's get_last_error */
};

/* One offload entry of an image (the legacy layout's fields), followed by
 * name_len bytes of name (no NUL). */
struct wire_entry {
  uint64_t addr;
  uint64_t size;
  int32_t flags;
  int32_t reserved;
  uint64_t name_len;
};

#endif
