/* simtarget-replay's parts: the manifest (manifest.c), one launch (launch.c). */
#ifndef SIMTARGET_REPLAY_H
#define SIMTARGET_REPLAY_H
#include <stdint.h>
#include <stdio.h>

#include "omptarget.h"

struct options {
  int times, gdb, valgrind, quiet;
  int teams, threads; /* another geometry: > 0 replaces the recorded one */
};

struct rec_span { /* a block or a global */
  char *name;     /* NULL for a block */
  uint64_t addr, size;
  uint64_t file_offset; /* in before.bin / after.bin */
};

struct rec_image {
  char *file;
  __tgt_offload_entry *entries;
  uint64_t count, filled;
};

struct manifest {
  char format[64], version[128], machine[32];
  int has_stack_limit, cpus; /* cpus: the device process's, 0 unknown */
  char env[8][176];            /* "NAME=VALUE" the device read */
  int env_count;
  unsigned long long stack_limit; /* ULLONG_MAX: unlimited */
  int args_filled;
  int device, guard, num_teams, thread_limit, arg_num, faulted;
  uint64_t device_base, device_memory, page_size; /* page_size 0: unknown */
  char kernel[1024], message[1024], compiler[256];
  uint64_t args[256];
  struct rec_image images[16];
  int image_count;
  struct rec_span *spans;
  size_t span_count;
  uint64_t bytes; /* of before.bin */
};

/* Reads DIR/manifest.txt: 0, or -1 said on stderr. */
int manifest_read(const char *dir, struct manifest *m);
/* Whether this simtarget-replay can replay `m` (format, device machine):
 * 0, or -1 with both sides named on stderr. */
int manifest_check(const char *dir, const struct manifest *m);
/* Whether `m` was recorded by the simtarget version of the plugin that will
 * replay it: 0, or -1 with both versions named on stderr. */
int manifest_check_version(const char *dir, const struct manifest *m,
                           const char *plugin_version);
/* "x86-64" or "ppc64le": the machine simtarget-replay runs on. */
const char *replay_host_machine(void);
/* Writes the gdb command file `path` (gdb.c): 0 or -1. */
int gdb_script(const char *path, const char *dir, const char *image_file,
               const unsigned char *elf, size_t size, const char *kernel,
               uint64_t entry);
/* 0 matched, 1 differed, 2 could not replay. */
int replay_launch(const char *dir, const struct options *opt);
#endif
