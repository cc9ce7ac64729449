/*
 * topology.c - which MPI ranks are this process's remote devices, from the
 * environment alone (no MPI call: libomptarget asks for the device count
 * when it loads the plugin, before main, before any MPI_Init).
 *
 *   SIMDEVICE_MPI_SPAWN=N  the plugin spawns N device ranks (1..16) at the
 *                          first device use; devices 0..N-1 are their ranks
 *                          0..N-1 (hosts from SIMDEVICE_MPI_HOSTS).
 *   else, under Open MPI's mpirun with two or more app contexts (MPMD):
 *                          the first app context's H ranks are programs, the
 *                          other S ranks device servers, dealt round robin:
 *                          program rank r has world ranks H + r + k*H.
 *   else                   no devices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topology.h"

/* 1 when the parent process carries the same MPI identity as this one
 * (OMPI_COMM_WORLD_RANK and the PMIx namespace): this process is then a
 * child the rank started (fork and exec, as a program that runs itself),
 * not the rank mpirun started, and an MPI_Init here would abort. */
static int child_of_the_rank(void) {
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  const char *ns = getenv("PMIX_NAMESPACE");
  char path[64], buf[65536];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
  FILE *f = fopen(path, "r");
  if (f == NULL || rank == NULL)
    return f ? fclose(f), 0 : 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  int same_rank = 0, same_ns = ns == NULL;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
    const char *e = buf + i;
    if (strncmp(e, "OMPI_COMM_WORLD_RANK=", 21) == 0)
      same_rank = strcmp(e + 21, rank) == 0;
    else if (ns != NULL && strncmp(e, "PMIX_NAMESPACE=", 15) == 0)
      same_ns = strcmp(e + 15, ns) == 0;
  }
  return same_rank && same_ns;
}

static int env_int(const char *name, int *out) {
  const char *v = getenv(name);
  char *end;
  if (v == NULL || *v == '\0')
    return -1;
  long n = strtol(v, &end, 10);
  if (*end != '\0' && *end != ' ')
    return -1;
  *out = (int)n;
  return 0;
}

int topology_get(struct topology *t, char *why, size_t len) {
  memset(t, 0, sizeof *t);
  why[0] = '\0';
  const char *spawn = getenv("SIMDEVICE_MPI_SPAWN");
  if (spawn != NULL && *spawn != '\0') {
    char *end;
    long n = strtol(spawn, &end, 10);
    if (*end != '\0' || n < 0 || n > TOPOLOGY_MAX_DEVICES) {
      snprintf(why, len, "simdevice-mpi: SIMDEVICE_MPI_SPAWN=%s is not a "
               "device count from 0 to %d", spawn, TOPOLOGY_MAX_DEVICES);
      return 0;
    }
    t->spawn = 1;
    t->count = (int)n;
    return t->count;
  }
  int size, rank, apps, hosts;
  if (env_int("OMPI_COMM_WORLD_SIZE", &size) != 0 ||
      env_int("OMPI_COMM_WORLD_RANK", &rank) != 0 ||
      env_int("OMPI_NUM_APP_CTX", &apps) != 0 || apps < 2 ||
      env_int("OMPI_APP_CTX_NUM_PROCS", &hosts) != 0 || hosts <= 0 ||
      hosts >= size) {
    snprintf(why, len, "simdevice-mpi: no remote devices (not started by "
             "mpirun beside simdevice-mpi-server ranks, and "
             "SIMDEVICE_MPI_SPAWN is not set)");
    return 0;
  }
  if (rank >= hosts)
    return 0; /* a rank of another app context: not a program rank */
  if (child_of_the_rank()) {
    snprintf(why, len, "simdevice-mpi: this process is a child of MPI rank "
             "%d (it inherited the rank's environment): the remote devices "
             "are the rank's own", rank);
    return 0;
  }
  int servers = size - hosts;
  t->hosts = hosts;
  t->rank = rank;
  t->count = servers / hosts + (rank < servers % hosts);
  if (t->count > TOPOLOGY_MAX_DEVICES)
    t->count = TOPOLOGY_MAX_DEVICES;
  return t->count;
}

int topology_device_rank(const struct topology *t, int index) {
  return t->spawn ? index : t->hosts + t->rank + index * t->hosts;
}
