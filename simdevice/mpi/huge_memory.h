/*
 * huge_memory.h - the file a device rank's device memory lives in
 * (huge_memory.c says why it is not a plain memfd).
 */
#ifndef SIMDEVICE_MPI_HUGE_MEMORY_H
#define SIMDEVICE_MPI_HUGE_MEMORY_H

#include <stdint.h>

/* A new, empty, unnamed file for `bytes` of device memory, close-on-exec:
 * on a tmpfs of its own mounted huge=always where the kernel allows it,
 * else a memfd. The caller sizes it (ftruncate). -1 with errno when not
 * even a memfd could be made. */
int huge_memory_file(uint64_t bytes);

/* A new block at [offset, offset + size) of that file: its first and last
 * 2 MiB pages made now, as huge pages (a block's edges, first written by a
 * small copy or by its device process, came in 4 KiB pages otherwise).
 * Nothing when the file is a memfd. */
void huge_memory_fill_edges(uint64_t offset, uint64_t size);

#endif
