/*
 * memory_blocks.h - the blocks the memory routines handed out
 * (omp_target_alloc, llvm_omp_target_alloc_host/_shared...), by device and
 * address: host and shared memory, so that omp_target_is_accessible can say
 * a device reaches it, and device memory, so that a mapping recognises a
 * device address passed where a host address belongs (maps.c).
 *
 * One balanced tree (AVL) keyed by (device, kind, begin): adding, removing
 * and finding the block that holds an address are O(log n) in the live
 * blocks (issue 30 item 12: a list made freeing 50,000 blocks take 9.8 s).
 *
 * Thread safety: every function takes the tree's own lock; none calls out
 * with it held.
 */
#ifndef SIMTARGET_MEMORY_BLOCKS_H
#define SIMTARGET_MEMORY_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* A block [begin, end) of device_num: device memory, or host/shared memory
 * its device can access. */
struct memory_block {
  uintptr_t begin, end;
  int device_num;
  bool device_memory;
};

/* Remember a block. 0, or -1 when out of host memory (cause recorded with
 * report_error_set; only the answers about this block are lost). */
HIDDEN int memory_blocks_add(int device_num, uintptr_t begin, size_t size,
                             bool device_memory);
/* Forget the block of device_num (either kind) that starts at `begin`.
 * Returns whether there was one. */
HIDDEN bool memory_blocks_remove(int device_num, uintptr_t begin);
/* The block of device_num and kind that holds address `addr`, copied to
 * *out; false when none does. */
HIDDEN bool memory_blocks_find(int device_num, bool device_memory,
                               uintptr_t addr, struct memory_block *out);
/* For tests: the number of blocks and the tree's height (at most about
 * 1.44 log2(n + 2) for a balanced tree, n for a list). */
HIDDEN size_t memory_blocks_count(void);
HIDDEN int memory_blocks_height(void);

#endif
