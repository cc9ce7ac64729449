/*
 * abi_image.h - the hand-built descriptor that the ABI tests (and the fault
 * sweep's abi_driver) register, as a compiler would: one device image,
 * build/tests/abi/kernels.so (tests/abi/kernels.c), with the test's own
 * host entries; and the tests that run themselves again as a child, to see
 * a program end. Test code only (static inline, no state of its own).
 */
#ifndef SIMTARGET_TESTS_ABI_IMAGE_H
#define SIMTARGET_TESTS_ABI_IMAGE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "omptarget.h"

/* A whole file, with a '\0' after its `*size` bytes, or NULL. */
static inline char *abi_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    }
    if (buf)
      buf[n] = '\0';
    *size = (size_t)n;
  }
  fclose(f);
  return buf;
}

/* The registered image and its descriptor (they must outlive it). */
struct abi_image {
  char *bytes;
  size_t size;
  __tgt_device_image image;
  __tgt_bin_desc desc;
};

/* Reads the image at `path` and registers it with `count` host entries;
 * 0, or -1 when the file cannot be read. */
static inline int abi_image_register(struct abi_image *a, const char *path,
                                     __tgt_offload_entry *entries,
                                     size_t count) {
  memset(a, 0, sizeof *a);
  a->bytes = abi_read_file(path, &a->size);
  if (!a->bytes)
    return -1;
  a->image = (__tgt_device_image){a->bytes, a->bytes + a->size, entries,
                                  entries + count};
  a->desc = (__tgt_bin_desc){1, &a->image, entries, entries + count};
  __tgt_register_lib(&a->desc);
  return 0;
}

/* The same with kernels.so beside the program `exe` (NULL: this program,
 * by /proc/self/exe). */
static inline int abi_kernels_register(struct abi_image *a, const char *exe,
                                       __tgt_offload_entry *entries,
                                       size_t count) {
  char path[4096];
  if (exe != NULL) {
    snprintf(path, sizeof path - 32, "%.4000s", exe);
  } else {
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n < 0)
      return -1;
    path[n] = '\0';
  }
  char *slash = strrchr(path, '/');
  if (!slash)
    return -1;
  strcpy(slash + 1, "kernels.so");
  return abi_image_register(a, path, entries, count);
}

static inline void abi_image_unregister(struct abi_image *a) {
  __tgt_unregister_lib(&a->desc);
  free(a->bytes);
  a->bytes = NULL;
}

/* This program's path into `buf` (len bytes): 0, or -1. Under Valgrind
 * /proc/self/exe names Valgrind's tool, while readlink of it is answered
 * with the program. */
static inline int abi_self_path(char *buf, size_t len) {
  ssize_t n = readlink("/proc/self/exe", buf, len - 1);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  return 0;
}

/* Runs `self --child ARG` after prepare(ctx) in the child (its environment),
 * its stderr into `err` (len > 0 bytes, '\0'-terminated). A cross build's
 * tests under qemu user mode, without binfmt_misc, re-execute themselves
 * through $SIMTARGET_TEST_EMULATOR (tests/ppc64le/check.sh). Returns the
 * child's exit status, 128 + its signal, or -1. */
static inline int abi_run_child(const char *self, const char *arg,
                                void (*prepare)(const void *ctx),
                                const void *ctx, char *err, size_t len) {
  int pipefd[2];
  if (pipe(pipefd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    prepare(ctx);
    const char *emulator = getenv("SIMTARGET_TEST_EMULATOR");
    if (emulator != NULL && *emulator != '\0')
      execlp(emulator, emulator, self, "--child", arg, (char *)NULL);
    else
      execl(self, self, "--child", arg, (char *)NULL);
    _exit(99);
  }
  close(pipefd[1]);
  size_t used = 0;
  ssize_t r;
  while (used + 1 < len &&
         (r = read(pipefd[0], err + used, len - 1 - used)) > 0)
    used += (size_t)r;
  err[used] = '\0';
  close(pipefd[0]);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
