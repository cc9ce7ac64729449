/*
 * image_entry.h - what the hand-built device images of the ABI tests
 * (kernels.c, kernels23.c) share: the compiler an image names, and its
 * entry table `.omp_offloading.entry.<name>` (legacy layout) that the
 * plugin resolves.
 */
#ifndef SIMTARGET_TESTS_ABI_IMAGE_ENTRY_H
#define SIMTARGET_TESTS_ABI_IMAGE_ENTRY_H

#include <stddef.h>
#include <stdint.h>

/* -DPRODUCER="clang version N": the compiler an image names (.comment) */
#ifdef PRODUCER
__asm__(".section .comment,\"MS\",@progbits,1\n"
        ".asciz \"" PRODUCER "\"\n"
        ".previous\n");
#endif

struct legacy_entry {
  void *addr;
  const char *name;
  size_t size;
  int32_t flags;
  int32_t reserved;
};
#define ENTRY(sym, size)                                                       \
  __attribute__((used, visibility("default"))) const struct legacy_entry       \
      entry_##sym __asm__(".omp_offloading.entry." #sym) = {(void *)&sym,      \
                                                            #sym, size, 0, 0}

#endif
