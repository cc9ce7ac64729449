/*
 * machine.h - which process namespace of which machine a process runs in,
 * as a string both ends of the link compare (machine.c). The host watches
 * a device rank's pid (pidfd) only when the rank's string equals its own:
 * a host name alone does not tell, since two machines or containers may
 * share a name, and a pid is another process in another pid namespace.
 */
#ifndef SIMDEVICE_MPI_MACHINE_H
#define SIMDEVICE_MPI_MACHINE_H

#include <stddef.h>

#define MACHINE_ID_MAX 96

/* "BOOT_ID pid:INODE@DEVICE": the kernel's boot id and the calling process's
 * pid namespace. 0, or -1 with "" in `out` when either cannot be read (then
 * it equals no other process's: compared as unknown). */
int machine_id(char *out, size_t len);

/* 1 when both ids are known and equal: the pids of one are the other's. */
int machine_same(const char *a, const char *b);

#endif
