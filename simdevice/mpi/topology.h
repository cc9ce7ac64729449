/*
 * topology.h - this process's remote devices and their MPI ranks
 * (topology.c); no MPI call, so the plugin stub can count devices before
 * libmpi is loaded.
 */
#ifndef SIMDEVICE_MPI_TOPOLOGY_H
#define SIMDEVICE_MPI_TOPOLOGY_H

#include <stddef.h>

#define TOPOLOGY_MAX_DEVICES 16

struct topology {
  int spawn; /* 1: SIMDEVICE_MPI_SPAWN, the plugin spawns the ranks */
  int count; /* remote devices of this process */
  int hosts; /* MPMD: ranks of the program's app context */
  int rank;  /* MPMD: this process's world rank */
};

/* Fills *t and returns the device count; 0 with the reason in `why` (or
 * "" when this process is simply not a program rank). */
__attribute__((visibility("hidden"))) int
topology_get(struct topology *t, char *why, size_t len);
/* Device `index`'s rank: in MPI_COMM_WORLD (MPMD) or in the spawned
 * group, which is also its rank among the device ranks' own world. */
__attribute__((visibility("hidden"))) int
topology_device_rank(const struct topology *t, int index);

#endif
