/*
 * memcheck.c - what memcheck knows of device memory in this process
 * (SIMDEVICE_VALGRIND=memcheck; simdev_control.memcheck_marks).
 *
 * The host writes device memory through its own mapping of the memfd, so
 * memcheck, which watches only this process, would take every device byte
 * for written. Instead the host sends byte-exact marks in the queue of
 * protection changes (protocol.h, enum simdev_mark), and this file turns
 * them into client requests: device memory starts NOACCESS; an allocation
 * makes exactly its bytes UNDEFINED (the bytes of its pages before its
 * start and after its end stay NOACCESS, so a read one char past a section
 * or one element before it is reported to the byte); a copy from the host
 * makes what it wrote DEFINED; a free makes the bytes NOACCESS again. What
 * a kernel writes memcheck sees by itself. Each allocation is a memcheck
 * block (VALGRIND_CREATE_BLOCK), so memcheck's reports say "N bytes after a
 * block of size M" and, once libomptarget named it (memcheck_name), name
 * the variable.
 *
 * Off (not under Valgrind, or marks not asked for), every function here
 * returns at once.
 *
 * Locking: memcheck_apply runs under protections.c's prot_lock; the block
 * table is also read and written by memcheck_name and memcheck_describe,
 * which the main slot's thread calls: `lock` guards the table.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK_H 1
#else
#define HAVE_MEMCHECK_H 0
#endif

static int on;
static unsigned char *base;
static uint64_t capacity;

/* Live allocations by offset (open addressing, grown at half full): the
 * memcheck block handle and the description, for the host's names. */
struct mc_block {
  uint64_t offset, size; /* size 0: empty slot */
  uint64_t head;         /* bytes before it that are its block's padding */
  unsigned handle, head_handle; /* memcheck's blocks (0: none) */
  char *name; /* what libomptarget said (memcheck_name), or NULL */
};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct mc_block *table;
static size_t table_cap, table_used;

int memcheck_on(void) { return on; }

void memcheck_init(const struct simdev_control *ctl) {
#if HAVE_MEMCHECK_H
  if (!ctl->memcheck_marks || !RUNNING_ON_VALGRIND)
    return;
  base = (unsigned char *)(uintptr_t)ctl->dev_base;
  capacity = ctl->capacity;
  /* Nothing is allocated yet: no byte may be touched. */
  VALGRIND_MAKE_MEM_NOACCESS(base, capacity);
  on = 1;
#else
  (void)ctl;
#endif
}

static size_t slot_of(uint64_t offset) {
  return (size_t)((offset * 0x9E3779B97F4A7C15ull) >> 20) & (table_cap - 1);
}

/* The entry of the block at `offset`, or NULL (under lock). */
static struct mc_block *find(uint64_t offset) {
  if (table_cap == 0)
    return NULL;
  for (size_t i = slot_of(offset);; i = (i + 1) & (table_cap - 1)) {
    if (table[i].size == 0)
      return NULL;
    if (table[i].offset == offset)
      return &table[i];
  }
}

static int grow(void) {
  size_t cap = table_cap ? table_cap * 2 : 256;
  struct mc_block *t = calloc(cap, sizeof *t), *old = table;
  if (t == NULL)
    return -1;
  size_t old_cap = table_cap;
  table = t;
  table_cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].size != 0) {
      size_t s = slot_of(old[i].offset);
      while (table[s].size != 0)
        s = (s + 1) & (cap - 1);
      table[s] = old[i];
    }
  free(old);
  return 0;
}

#if HAVE_MEMCHECK_H
/* Tells memcheck the block's description (replacing the one it had).
 * Memcheck names a client block only for addresses inside it, so the
 * block covers the allocation's padding up to the next 8 bytes too (the
 * host ends allocations there, plugin/allocator.c), and the padding before
 * it is a block of its own: a read one char past a section or one element
 * before it then names the allocation. Handles start at 0, so each is
 * kept plus one. */
static void describe(struct mc_block *b) {
  char what[300], desc[400];
  uint64_t padded = (b->size + 7) & ~7ull;
  if (b->handle != 0)
    VALGRIND_DISCARD(b->handle - 1);
  if (b->head_handle != 0)
    VALGRIND_DISCARD(b->head_handle - 1);
  snprintf(what, sizeof what, "device allocation%s%.200s (%llu bytes at 0x%llx",
           b->name != NULL ? " of " : "", b->name != NULL ? b->name : "",
           (unsigned long long)b->size,
           (unsigned long long)(uintptr_t)(base + b->offset));
  if (padded > b->size)
    snprintf(desc, sizeof desc, "%s, then %llu bytes of padding no section "
             "covers)", what, (unsigned long long)(padded - b->size));
  else
    snprintf(desc, sizeof desc, "%s)", what);
  b->handle = VALGRIND_CREATE_BLOCK(base + b->offset, padded, desc) + 1;
  b->head_handle = 0;
  if (b->head > 0) {
    snprintf(desc, sizeof desc, "padding before the %s)", what);
    b->head_handle =
        VALGRIND_CREATE_BLOCK(base + b->offset - b->head, b->head, desc) + 1;
  }
}

/* A new allocation at [offset, offset + size) (under lock). */
static void block_add(uint64_t offset, uint64_t size) {
  struct mc_block *b = find(offset);
  if (b == NULL) {
    if ((table_used + 1) * 2 > table_cap && grow() != 0)
      return; /* no block: memcheck's reports just name no allocation */
    size_t s = slot_of(offset);
    while (table[s].size != 0)
      s = (s + 1) & (table_cap - 1);
    b = &table[s];
    *b = (struct mc_block){.offset = offset};
    table_used++;
  }
  free(b->name);
  b->name = NULL;
  b->size = size;
  b->head = 0;
  describe(b);
}

/* The allocation at `offset` is freed (under lock). */
static void block_remove(uint64_t offset) {
  struct mc_block *b = find(offset);
  if (b == NULL)
    return;
  if (b->handle != 0)
    VALGRIND_DISCARD(b->handle - 1);
  if (b->head_handle != 0)
    VALGRIND_DISCARD(b->head_handle - 1);
  free(b->name);
  size_t mask = table_cap - 1, i = (size_t)(b - table);
  table[i].size = 0;
  table_used--;
  /* Backward-shift deletion keeps every probe chain unbroken. */
  for (size_t j = (i + 1) & mask; table[j].size != 0; j = (j + 1) & mask) {
    size_t home = slot_of(table[j].offset);
    if (((j - home) & mask) >= ((j - i) & mask)) {
      table[i] = table[j];
      table[j].size = 0;
      i = j;
    }
  }
}
#endif

int memcheck_apply(const struct simdev_prot_change *c) {
  if (c->access < SIMDEV_MARK_UNDEFINED)
    return 0;
#if HAVE_MEMCHECK_H
  if (!on || c->offset >= capacity || c->length > capacity - c->offset ||
      c->length == 0)
    return 1;
  unsigned char *p = base + c->offset;
  pthread_mutex_lock(&lock);
  switch (c->access) {
  case SIMDEV_MARK_UNDEFINED:
    VALGRIND_MAKE_MEM_UNDEFINED(p, c->length);
    block_add(c->offset, c->length);
    break;
  case SIMDEV_MARK_DEFINED:
    VALGRIND_MAKE_MEM_DEFINED(p, c->length);
    break;
  case SIMDEV_MARK_NOACCESS:
    VALGRIND_MAKE_MEM_NOACCESS(p, c->length);
    if (find(c->offset) != NULL) {
      block_remove(c->offset); /* freed */
    } else {
      /* The padding before a new allocation (queued right after it). */
      struct mc_block *b = find(c->offset + c->length);
      if (b != NULL && b->head == 0) {
        b->head = c->length;
        describe(b);
      }
    }
    break;
  default:
    break;
  }
  pthread_mutex_unlock(&lock);
#endif
  return 1;
}
