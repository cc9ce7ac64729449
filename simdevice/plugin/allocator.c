/*
 * allocator.c - manages one device's memory range from the host.
 *
 * Blocks live in host memory (never inside device memory, where a kernel
 * could corrupt them). Free blocks sit in size-class bins (floor(log2 units));
 * allocation takes the first fitting block of the smallest class that can
 * hold it, so it is O(1) apart from a scan of one class. Freeing coalesces
 * with the address neighbours in O(1) and finds the block by its user offset
 * in a hash table; a copy that starts inside an allocation finds it through
 * an ordered index of the used blocks (a treap: O(log n) expected). With
 * guard pages the granule is a page, each block carries one extra
 * inaccessible page after its data, and the data ends right before it
 * (8-byte end alignment). With guard pages a freed block stays
 * inaccessible in a quarantine (oldest first out, QUARANTINE_MAX_BLOCKS at
 * most, emptied before memory runs out) instead of being handed out again at
 * once, whatever its size: a kernel that reads memory freed by `target exit
 * data` through a kept device pointer faults instead of reading a newer
 * allocation. Freed memory goes back to the system (a hole punched in the
 * memfd): for quarantined blocks beyond the newest QUARANTINE_MAX_BYTES,
 * which keep only their address range, and for a free range once
 * GIVE_BACK_BATCH_BYTES of freed memory gathered in it. One
 * allocation may take a block back from the quarantine: a new mapping of
 * the same host object (data_alloc's hst_ptr) with the same number of
 * pages. A kept pointer then reads a newer copy of the same object (as with
 * a caching GPU allocator), never another object's data, and the block's
 * pages are populated in both processes already while its queued change to
 * inaccessible cancels with the new one to accessible: a region that maps a
 * temporary costs the device process no system call and no page fault.
 *
 * Locking: `lock` guards every field, including the queue of protection
 * changes that the channel drains.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_internal.h"

struct alloc_block {
  uint64_t start, units;           /* in granules */
  int is_free;
  int quarantined; /* freed, kept inaccessible: neither free nor used */
  int punched;     /* quarantined, its memory given back to the system */
  /* free: bytes of it that may still hold memory, all within the offsets
   * [dirty_lo, dirty_hi) */
  uint64_t dirty, dirty_lo, dirty_hi;
  struct alloc_block *prev, *next; /* address order */
  struct alloc_block *bin_prev, *bin_next; /* a bin, or the quarantine */
  /* The host object a used block mirrors (0: none). A quarantined block
   * with a nonzero `host` is in the by_host table, chained here. */
  uint64_t host;
  struct alloc_block *host_prev, *host_next;
  uint64_t user_offset, user_size; /* what the caller got (used blocks) */
  struct alloc_block *left, *right; /* live_root treap (used blocks) */
  uint64_t priority;
};

/* ---- ordered index of used blocks by user offset (a treap) ---- */
static uint64_t next_priority(struct device_allocator *a) {
  a->treap_seed ^= a->treap_seed << 13; /* xorshift64 */
  a->treap_seed ^= a->treap_seed >> 7;
  a->treap_seed ^= a->treap_seed << 17;
  return a->treap_seed;
}

/* Splits `t` into the nodes with keys below `key` and the rest. */
static void treap_split(struct alloc_block *t, uint64_t key,
                        struct alloc_block **below, struct alloc_block **rest) {
  if (t == NULL) {
    *below = *rest = NULL;
  } else if (t->user_offset < key) {
    treap_split(t->right, key, &t->right, rest);
    *below = t;
  } else {
    treap_split(t->left, key, below, &t->left);
    *rest = t;
  }
}

/* Joins two treaps, every key of `lo` below every key of `hi`. */
static struct alloc_block *treap_merge(struct alloc_block *lo,
                                       struct alloc_block *hi) {
  if (lo == NULL)
    return hi;
  if (hi == NULL)
    return lo;
  if (lo->priority > hi->priority) {
    lo->right = treap_merge(lo->right, hi);
    return lo;
  }
  hi->left = treap_merge(lo, hi->left);
  return hi;
}

static void live_insert(struct device_allocator *a, struct alloc_block *b) {
  struct alloc_block *below, *rest;
  b->left = b->right = NULL;
  b->priority = next_priority(a);
  treap_split(a->live_root, b->user_offset, &below, &rest);
  a->live_root = treap_merge(treap_merge(below, b), rest);
}

static void live_remove(struct device_allocator *a, struct alloc_block *b) {
  struct alloc_block **link = &a->live_root;
  while (*link != NULL && *link != b)
    link = b->user_offset < (*link)->user_offset ? &(*link)->left
                                                 : &(*link)->right;
  if (*link == b)
    *link = treap_merge(b->left, b->right);
  b->left = b->right = NULL;
}

/* The used block with the greatest user offset <= `offset`, or NULL. */
static struct alloc_block *live_floor(const struct device_allocator *a,
                                      uint64_t offset) {
  struct alloc_block *best = NULL;
  for (struct alloc_block *t = a->live_root; t != NULL;)
    if (t->user_offset <= offset) {
      best = t;
      t = t->right;
    } else {
      t = t->left;
    }
  return best;
}

static unsigned bin_of(uint64_t units) { return 63u - (unsigned)__builtin_clzll(units); }

static void bin_insert(struct device_allocator *a, struct alloc_block *b) {
  unsigned i = bin_of(b->units);
  b->bin_prev = NULL;
  b->bin_next = a->bins[i];
  if (a->bins[i] != NULL)
    a->bins[i]->bin_prev = b;
  a->bins[i] = b;
}

static void bin_remove(struct device_allocator *a, struct alloc_block *b) {
  if (b->bin_prev != NULL)
    b->bin_prev->bin_next = b->bin_next;
  else
    a->bins[bin_of(b->units)] = b->bin_next;
  if (b->bin_next != NULL)
    b->bin_next->bin_prev = b->bin_prev;
  b->bin_prev = b->bin_next = NULL;
}

/* ---- hash table of used blocks by user offset (linear probing) ---- */
static size_t slot_of(const struct device_allocator *a, uint64_t key) {
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (a->table_cap - 1);
}

static int table_grow(struct device_allocator *a) {
  size_t cap = a->table_cap ? a->table_cap * 2 : 1024;
  struct alloc_block **t = calloc(cap, sizeof *t);
  if (t == NULL)
    return -1;
  struct alloc_block **old = a->table;
  size_t old_cap = a->table_cap;
  a->table = t;
  a->table_cap = cap;
  for (size_t i = 0; i < old_cap; i++) {
    if (old[i] == NULL)
      continue;
    size_t s = slot_of(a, old[i]->user_offset);
    while (t[s] != NULL)
      s = (s + 1) & (cap - 1);
    t[s] = old[i];
  }
  free(old);
  return 0;
}

static int table_put(struct device_allocator *a, struct alloc_block *b) {
  if ((a->table_used + 1) * 2 > a->table_cap && table_grow(a) != 0)
    return -1;
  size_t s = slot_of(a, b->user_offset);
  while (a->table[s] != NULL)
    s = (s + 1) & (a->table_cap - 1);
  a->table[s] = b;
  a->table_used++;
  return 0;
}

static struct alloc_block *table_take(struct device_allocator *a, uint64_t key) {
  if (a->table_cap == 0)
    return NULL;
  size_t mask = a->table_cap - 1, i = slot_of(a, key);
  while (a->table[i] != NULL && a->table[i]->user_offset != key)
    i = (i + 1) & mask;
  struct alloc_block *found = a->table[i];
  if (found == NULL)
    return NULL;
  a->table[i] = NULL;
  a->table_used--;
  /* Backward-shift deletion keeps every probe chain unbroken. */
  for (size_t j = (i + 1) & mask; a->table[j] != NULL; j = (j + 1) & mask) {
    size_t home = slot_of(a, a->table[j]->user_offset);
    int stays = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
    if (!stays) {
      a->table[i] = a->table[j];
      a->table[j] = NULL;
      i = j;
    }
  }
  return found;
}

static struct alloc_block *coalesce(struct device_allocator *a,
                                    struct alloc_block *b);
static void free_block_insert(struct device_allocator *a,
                              struct alloc_block *b, uint64_t dirty);

/* ---- protection queue ---- */
/* How far back a change looks for the one it undoes: a region's maps and
 * unmaps come in small groups. */
#define CANCEL_WINDOW 16

static int overlaps(const struct simdev_prot_change *c, uint64_t offset,
                    uint64_t length) {
  return c->offset < offset + length && offset < c->offset + c->length;
}

static int queue_protection(struct device_allocator *a, uint64_t offset,
                            uint64_t length, uint32_t access) {
  struct prot_queue *q = &a->pending;
  /* The same range queued with the other access and nothing later touching
   * it: the device process never saw the first change, and this one puts
   * the range back as it was before (a free turns a range that was made
   * accessible inaccessible again, a reuse of the same block the reverse;
   * free memory is always inaccessible there), so both go. A block
   * allocated and freed between two commands thus costs no mprotect (the
   * reverse, freed then reused, needs the block out of the quarantine
   * first: only when memory runs short). */
  size_t end = q->head + q->count;
  size_t stop = q->count > CANCEL_WINDOW ? end - CANCEL_WINDOW : q->head;
  /* ASan and memcheck changes (access >= 2) never cancel: each says what
   * the bytes hold. */
  if (access > SIMDEV_ACCESS_READ_WRITE)
    stop = end;
  for (size_t i = end; i-- > stop;) {
    struct simdev_prot_change *c = &q->items[i];
    if (c->offset == offset && c->length == length && c->access != access &&
        c->access <= SIMDEV_ACCESS_READ_WRITE &&
        access <= SIMDEV_ACCESS_READ_WRITE) {
      memmove(c, c + 1, (end - i - 1) * sizeof *c);
      q->count--;
      return 0;
    }
    if (overlaps(c, offset, length))
      break;
  }
  if (end == q->cap && q->head > 0) {
    /* The channel took changes from the front: reuse that room. */
    memmove(q->items, q->items + q->head, q->count * sizeof *q->items);
    q->head = 0;
    end = q->count;
  }
  if (end == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 256;
    struct simdev_prot_change *items = realloc(q->items, cap * sizeof *items);
    if (items == NULL)
      return -1;
    q->items = items;
    q->cap = cap;
  }
  q->items[end] = (struct simdev_prot_change){
      .offset = offset, .length = length, .access = access};
  q->count++;
  return 0;
}

/* A device process that runs ASan learns each block's bytes: the whole
 * block (its guard page too) is poisoned, then the caller's `size` bytes at
 * `user` made usable again, so a use one byte past the end or before the
 * start is reported to the byte (a block's data ends 8-byte aligned and
 * ASan's shadow has a partial last granule). A freed block is poisoned
 * whole. 0, or -1 without host memory. Caller holds the lock. */
static int queue_asan(struct device_allocator *a, const struct alloc_block *b,
                      uint64_t user, uint64_t size, int live) {
  if (!a->asan)
    return 0;
  if (queue_protection(a, b->start * a->unit, b->units * a->unit,
                       SIMDEV_ACCESS_ASAN_POISON) != 0)
    return -1;
  if (!live || size == 0)
    return 0;
  return queue_protection(a, user, size, SIMDEV_ACCESS_ASAN_UNPOISON);
}

/* The most bytes of quarantined blocks that keep their memory; beyond, the
 * oldest give theirs back (and stay quarantined: only address space).
 * Counted without guard pages, which never hold memory: a 64 MiB
 * temporary, counted with its guard page, gave its memory back at each
 * free, and each map(tofrom) of it faulted its 16384 pages in again (60 ms
 * a region against 10 ms kept). */
#define QUARANTINE_MAX_BYTES (64ull << 20)
/* The most quarantined blocks before the oldest is reused. */
#define QUARANTINE_MAX_BLOCKS 8192

/* ---- quarantined blocks by host object (chained hash table) ---- */
/* The quarantine holds at most QUARANTINE_MAX_BLOCKS blocks: chains stay
 * short. */
#define BY_HOST_BITS 12

static size_t host_bucket(uint64_t host) {
  return (size_t)(((host >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - BY_HOST_BITS));
}

/* Indexes quarantined `b` by its host object; without the table (no host
 * memory for it) the block is just not taken back: `host` becomes 0. */
static void by_host_insert(struct device_allocator *a, struct alloc_block *b) {
  if (b->host == 0)
    return;
  if (a->by_host == NULL &&
      (a->by_host = calloc((size_t)1 << BY_HOST_BITS, sizeof *a->by_host)) ==
          NULL) {
    b->host = 0;
    return;
  }
  struct alloc_block **head = &a->by_host[host_bucket(b->host)];
  b->host_prev = NULL;
  b->host_next = *head;
  if (*head != NULL)
    (*head)->host_prev = b;
  *head = b;
}

static void by_host_remove(struct device_allocator *a, struct alloc_block *b) {
  if (b->host == 0)
    return;
  if (b->host_prev != NULL)
    b->host_prev->host_next = b->host_next;
  else
    a->by_host[host_bucket(b->host)] = b->host_next;
  if (b->host_next != NULL)
    b->host_next->host_prev = b->host_prev;
  b->host_prev = b->host_next = NULL;
  b->host = 0;
}

/* The most recently quarantined block of host object `host` that is `units`
 * granules long, or NULL. */
static struct alloc_block *by_host_find(const struct device_allocator *a,
                                        uint64_t host, uint64_t units) {
  if (host == 0 || a->by_host == NULL)
    return NULL;
  for (struct alloc_block *b = a->by_host[host_bucket(host)]; b != NULL;
       b = b->host_next)
    if (b->host == host && b->units == units)
      return b;
  return NULL;
}

/* Bytes of the accessible part of a used block (all but its guard page). */
static uint64_t data_bytes(const struct device_allocator *a,
                           const struct alloc_block *b) {
  return (b->units - (a->guard ? 1 : 0)) * a->unit;
}

/* Gives the memory of [offset, offset + length) back to the system (its
 * whole pages; the memfd's pages go from both processes at once), so freed
 * device memory is not resident until exit; it reads as zeros if used
 * again. Only while the descriptor is still the memfd: a program that closed
 * it and opened a file of its own under the number must not have that file
 * punched. (Not madvise(MADV_REMOVE) on the host's view: qemu-user accepts
 * it and does nothing.) A kernel without hole punching for the memfd keeps
 * it resident: not tried again. Caller holds the lock: the range cannot be
 * handed out meanwhile. */
static void give_back_memory(struct device_allocator *a, uint64_t offset,
                             uint64_t length) {
  uint64_t page = PAGE_BYTES;
  uint64_t begin = (offset + page - 1) / page * page;
  uint64_t end = (offset + length) / page * page;
  if (a->backing.fd < 0 || end <= begin)
    return;
  if (!fd_still_ours(&a->backing) ||
      fallocate(a->backing.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                (off_t)begin, (off_t)(end - begin)) != 0)
    a->backing.fd = -1;
}

int allocator_init(struct device_allocator *a, uint64_t base,
                   uint64_t capacity, int guard) {
  memset(a, 0, sizeof *a);
  a->backing.fd = -1;
  a->base = base;
  a->guard = guard;
  a->unit = guard ? PAGE_BYTES : 64;
  a->capacity = capacity / a->unit * a->unit;
  if (a->capacity < 2 * a->unit) {
    plugin_error("simdevice: device memory of %llu bytes is too small",
                 (unsigned long long)capacity);
    return -1;
  }
  struct alloc_block *all = calloc(1, sizeof *all);
  if (all == NULL) {
    plugin_error("simdevice: no host memory for the allocator");
    return -1;
  }
  all->units = a->capacity / a->unit;
  all->is_free = 1;
  a->first = all;
  a->treap_seed = 0x9E3779B97F4A7C15ull ^ base ^ capacity;
  bin_insert(a, all);
  if (pthread_mutex_init(&a->lock, NULL) != 0) {
    free(all);
    plugin_error("simdevice: cannot create the allocator lock");
    return -1;
  }
  return 0;
}

void allocator_destroy(struct device_allocator *a) {
  struct alloc_block *b = a->first;
  while (b != NULL) {
    struct alloc_block *next = b->next;
    free(b);
    b = next;
  }
  free(a->table);
  free(a->by_host);
  free(a->pending.items);
  pthread_mutex_destroy(&a->lock);
  memset(a, 0, sizeof *a);
  a->backing.fd = -1;
}

/* Takes `b` out of the quarantine (neither free nor used then). */
static void quarantine_remove(struct device_allocator *a,
                              struct alloc_block *b) {
  if (a->quarantine_unpunched == b)
    a->quarantine_unpunched = b->bin_next;
  if (b->bin_prev != NULL)
    b->bin_prev->bin_next = b->bin_next;
  else
    a->quarantine_head = b->bin_next;
  if (b->bin_next != NULL)
    b->bin_next->bin_prev = b->bin_prev;
  else
    a->quarantine_tail = b->bin_prev;
  b->bin_prev = b->bin_next = NULL;
  if (!b->punched)
    a->quarantine_bytes -= data_bytes(a, b);
  a->quarantine_blocks--;
  by_host_remove(a, b);
  b->quarantined = 0;
  b->punched = 0;
}

/* Quarantined `b` keeps its address range but gives its memory back. */
static void quarantine_punch(struct device_allocator *a,
                             struct alloc_block *b) {
  give_back_memory(a, b->start * a->unit, b->units * a->unit);
  a->quarantine_bytes -= data_bytes(a, b);
  b->punched = 1;
}

/* Hands the oldest quarantined block back to the free bins, without its
 * memory: a free block holds none. */
static void quarantine_release_oldest(struct device_allocator *a) {
  struct alloc_block *b = a->quarantine_head;
  uint64_t dirty = b->punched ? 0 : b->units * a->unit;
  quarantine_remove(a, b);
  free_block_insert(a, b, dirty);
}

/* Freed memory gathered in one free range before it is given back: one
 * system call per that much, not per small block. */
#define GIVE_BACK_BATCH_BYTES (1ull << 20)

/* Makes `b` (neither free nor used, `dirty` bytes of it possibly resident)
 * a free block: merged with its free neighbours, whose memory is given back
 * once GIVE_BACK_BATCH_BYTES of it gathered. */
static void free_block_insert(struct device_allocator *a,
                              struct alloc_block *b, uint64_t dirty) {
  b->is_free = 1;
  b->user_size = 0;
  b->host = 0;
  b->dirty = dirty;
  b->dirty_lo = b->start * a->unit;
  b->dirty_hi = dirty ? (b->start + b->units) * a->unit : b->dirty_lo;
  b = coalesce(a, b);
  if (b->dirty >= GIVE_BACK_BATCH_BYTES) {
    give_back_memory(a, b->dirty_lo, b->dirty_hi - b->dirty_lo);
    b->dirty = 0;
    b->dirty_hi = b->dirty_lo;
  }
  bin_insert(a, b);
}

static uint64_t quarantine_max(const struct device_allocator *a) {
  return a->capacity / 4 < QUARANTINE_MAX_BYTES ? a->capacity / 4
                                                : QUARANTINE_MAX_BYTES;
}

static void quarantine_add(struct device_allocator *a, struct alloc_block *b) {
  b->quarantined = 1;
  /* The quarantine links through bin_prev/bin_next, oldest first. */
  b->bin_prev = a->quarantine_tail;
  b->bin_next = NULL;
  if (a->quarantine_tail != NULL)
    a->quarantine_tail->bin_next = b;
  else
    a->quarantine_head = b;
  a->quarantine_tail = b;
  a->quarantine_bytes += data_bytes(a, b);
  a->quarantine_blocks++;
  by_host_insert(a, b);
  /* The oldest leaves first (its memory given back with the free blocks'),
   * then a block larger than the resident part gives its memory back at
   * once, not every older block's. */
  while (a->quarantine_blocks > QUARANTINE_MAX_BLOCKS)
    quarantine_release_oldest(a);
  if (data_bytes(a, b) > quarantine_max(a))
    quarantine_punch(a, b);
  if (a->quarantine_unpunched == NULL)
    a->quarantine_unpunched = b;
  /* The oldest give theirs back first; each block is passed once. */
  struct alloc_block *o = a->quarantine_unpunched;
  for (; o != NULL && a->quarantine_bytes > quarantine_max(a);
       o = o->bin_next)
    if (!o->punched)
      quarantine_punch(a, o);
  a->quarantine_unpunched = o;
}

static struct alloc_block *find_fit(struct device_allocator *a, uint64_t need) {
  unsigned first_bin = bin_of(need);
  for (struct alloc_block *b = a->bins[first_bin]; b != NULL; b = b->bin_next)
    if (b->units >= need)
      return b;
  for (unsigned i = first_bin + 1; i < 64; i++)
    if (a->bins[i] != NULL)
      return a->bins[i];
  return NULL;
}

/* Adds the possibly resident memory of free block `from` to `into`'s. */
static void merge_dirty(struct alloc_block *into,
                        const struct alloc_block *from) {
  if (from->dirty == 0)
    return;
  if (into->dirty == 0) {
    into->dirty_lo = from->dirty_lo;
    into->dirty_hi = from->dirty_hi;
  } else {
    if (from->dirty_lo < into->dirty_lo)
      into->dirty_lo = from->dirty_lo;
    if (from->dirty_hi > into->dirty_hi)
      into->dirty_hi = from->dirty_hi;
  }
  into->dirty += from->dirty;
}

/* Merges `b`'s free neighbours into it; returns the surviving block. */
static struct alloc_block *coalesce(struct device_allocator *a,
                                    struct alloc_block *b) {
  struct alloc_block *n = b->next;
  if (n != NULL && n->is_free) {
    bin_remove(a, n);
    b->units += n->units;
    merge_dirty(b, n);
    b->next = n->next;
    if (n->next != NULL)
      n->next->prev = b;
    free(n);
  }
  struct alloc_block *p = b->prev;
  if (p != NULL && p->is_free) {
    bin_remove(a, p);
    p->units += b->units;
    merge_dirty(p, b);
    p->next = b->next;
    if (b->next != NULL)
      b->next->prev = p;
    free(b);
    b = p;
  }
  return b;
}

/* memcheck marks of a new allocation: its bytes [user, user + size)
 * UNDEFINED, the rest of its block's data [start, start + data) NOACCESS,
 * so both the bytes after its end (8-byte end alignment) and those before
 * its start are reported exactly. */
static int queue_marks_alloc(struct device_allocator *a, uint64_t start,
                             uint64_t data, uint64_t user, uint64_t size) {
  uint64_t end = user + size;
  if (size > 0 && queue_protection(a, user, size, SIMDEV_MARK_UNDEFINED) != 0)
    return -1;
  if (user > start &&
      queue_protection(a, start, user - start, SIMDEV_MARK_NOACCESS) != 0)
    return -1;
  if (start + data > end &&
      queue_protection(a, end, start + data - end, SIMDEV_MARK_NOACCESS) != 0)
    return -1;
  return 0;
}

int allocator_alloc(struct device_allocator *a, uint64_t size, uint64_t host,
                    uint64_t *offset_out) {
  uint64_t payload = size == 0 ? 8 : (size + 7) & ~7ull;
  if (size > a->capacity) {
    plugin_error("simdevice: cannot allocate %llu bytes: device memory is "
                 "%llu bytes (SIMDEVICE_MEMORY)",
                 (unsigned long long)size, (unsigned long long)a->capacity);
    return -1;
  }
  uint64_t need = (payload + a->unit - 1) / a->unit + (a->guard ? 1 : 0);
  pthread_mutex_lock(&a->lock);
  /* A new copy of a host object goes where its last copy was. */
  struct alloc_block *b = by_host_find(a, host, need), *rest = NULL;
  int taken_back = b != NULL;
  if (b == NULL)
    b = find_fit(a, need);
  if (b == NULL && a->quarantine_head != NULL) {
    while (a->quarantine_head != NULL) /* memory before use-after-free checks */
      quarantine_release_oldest(a);
    b = find_fit(a, need);
  }
  if (b == NULL) {
    uint64_t used = a->bytes_used;
    pthread_mutex_unlock(&a->lock);
    plugin_error("simdevice: out of device memory: cannot allocate %llu "
                 "bytes (%llu of %llu bytes in use; raise SIMDEVICE_MEMORY)",
                 (unsigned long long)size, (unsigned long long)used,
                 (unsigned long long)a->capacity);
    return -1;
  }
  if (!taken_back && b->units > need) {
    rest = calloc(1, sizeof *rest);
    if (rest == NULL)
      goto out_no_host_memory;
  }
  uint64_t user_offset = b->start * a->unit;
  if (a->guard)
    user_offset += (need - 1) * a->unit - payload;
  /* Commit only once nothing can fail any more. */
  uint64_t saved_offset = b->user_offset;
  b->user_offset = user_offset;
  if (table_put(a, b) != 0)
    goto out_restore_offset;
  if ((a->guard &&
       queue_protection(a, b->start * a->unit, (need - 1) * a->unit, 1) != 0) ||
      queue_asan(a, &(struct alloc_block){.start = b->start, .units = need},
                 user_offset, size, 1) != 0 ||
      (a->marks && queue_marks_alloc(a, b->start * a->unit,
                                     (need - (a->guard ? 1 : 0)) * a->unit,
                                     user_offset, size) != 0)) {
    table_take(a, user_offset);
    goto out_restore_offset;
  }
  if (taken_back)
    quarantine_remove(a, b);
  else
    bin_remove(a, b);
  if (rest != NULL) {
    rest->start = b->start + need;
    rest->units = b->units - need;
    rest->is_free = 1;
    /* What of b's possibly resident memory lies in the rest. */
    uint64_t lo = (b->start + need) * a->unit;
    rest->dirty_lo = b->dirty_lo > lo ? b->dirty_lo : lo;
    rest->dirty_hi = b->dirty_hi > rest->dirty_lo ? b->dirty_hi
                                                  : rest->dirty_lo;
    rest->dirty = b->dirty < rest->dirty_hi - rest->dirty_lo
                      ? b->dirty
                      : rest->dirty_hi - rest->dirty_lo;
    rest->prev = b;
    rest->next = b->next;
    if (b->next != NULL)
      b->next->prev = rest;
    b->next = rest;
    b->units = need;
    bin_insert(a, rest);
  }
  b->is_free = 0;
  b->user_size = size;
  b->host = host; /* indexed only once quarantined */
  live_insert(a, b);
  a->bytes_used += b->units * a->unit;
  pthread_mutex_unlock(&a->lock);
  *offset_out = user_offset;
  return 0;
out_restore_offset:
  b->user_offset = saved_offset;
  free(rest);
out_no_host_memory:
  pthread_mutex_unlock(&a->lock);
  plugin_error("simdevice: no host memory to track a device allocation of "
               "%llu bytes",
               (unsigned long long)size);
  return -1;
}

int allocator_free(struct device_allocator *a, uint64_t offset) {
  pthread_mutex_lock(&a->lock);
  struct alloc_block *b = table_take(a, offset);
  if (b == NULL) {
    pthread_mutex_unlock(&a->lock);
    plugin_error("simdevice: data_delete of device address 0x%llx, which is "
                 "not the start of a live allocation (double free?)",
                 (unsigned long long)(a->base + offset));
    return -1;
  }
  if ((a->guard &&
       queue_protection(a, b->start * a->unit, data_bytes(a, b), 0) != 0) ||
      queue_asan(a, b, 0, 0, 0) != 0 ||
      (a->marks && b->user_size > 0 &&
       queue_protection(a, b->user_offset, b->user_size,
                        SIMDEV_MARK_NOACCESS) != 0)) {
    /* Keep the memory allocated rather than lose track of its protection. */
    table_put(a, b);
    pthread_mutex_unlock(&a->lock);
    plugin_error("simdevice: no host memory to free device address 0x%llx",
                 (unsigned long long)(a->base + offset));
    return -1;
  }
  a->bytes_used -= b->units * a->unit;
  live_remove(a, b);
  /* Whatever its size: its address range is not reused until the
   * quarantine is full or an allocation would fail otherwise. */
  if (a->guard) {
    quarantine_add(a, b);
    pthread_mutex_unlock(&a->lock);
    return 0;
  }
  free_block_insert(a, b, b->units * a->unit);
  pthread_mutex_unlock(&a->lock);
  return 0;
}

size_t allocator_take_protections(struct device_allocator *a,
                                  struct simdev_prot_change *out, size_t max) {
  pthread_mutex_lock(&a->lock);
  /* From the front, in order; what is left stays where it is (moving it
   * down at each take made sending many changes quadratic). */
  struct prot_queue *q = &a->pending;
  size_t n = q->count < max ? q->count : max;
  memcpy(out, q->items + q->head, n * sizeof *out);
  q->count -= n;
  q->head = q->count ? q->head + n : 0;
  pthread_mutex_unlock(&a->lock);
  return n;
}

int allocator_mark(struct device_allocator *a, uint64_t offset,
                   uint64_t length, uint32_t mark) {
  if (!a->marks || length == 0)
    return 0;
  pthread_mutex_lock(&a->lock);
  int rc = queue_protection(a, offset, length, mark);
  pthread_mutex_unlock(&a->lock);
  if (rc != 0)
    plugin_error("simdevice: no host memory to queue a memcheck mark");
  return rc;
}

int allocator_requeue_live(struct device_allocator *a) {
  int rc = 0;
  pthread_mutex_lock(&a->lock);
  a->pending.count = 0;
  a->pending.head = 0;
  /* A new process knows nothing the old one wrote: with memcheck marks,
   * live bytes count as defined (no report the program did not earn). */
  for (struct alloc_block *b = a->first; b != NULL && rc == 0; b = b->next)
    if (!b->is_free && !b->quarantined) {
      if (a->guard)
        rc = queue_protection(a, b->start * a->unit, data_bytes(a, b), 1);
      if (rc == 0)
        rc = queue_asan(a, b, b->user_offset, b->user_size, 1);
      if (rc == 0 && a->marks && b->user_size > 0)
        rc = queue_protection(a, b->user_offset, b->user_size,
                              SIMDEV_MARK_DEFINED);
    }
  pthread_mutex_unlock(&a->lock);
  if (rc != 0)
    plugin_error("simdevice: no host memory to restore device memory "
                 "protections");
  return rc;
}

void allocator_describe(struct device_allocator *a, uint64_t offset,
                        char *buf, size_t len) {
  pthread_mutex_lock(&a->lock);
  struct alloc_block *b = a->first;
  while (b != NULL && (b->start + b->units) * a->unit <= offset)
    b = b->next;
  if (b != NULL && b->quarantined) {
    snprintf(buf, len, "freed device memory (the %llu-byte device allocation "
                       "at 0x%llx, freed and not reused yet)",
             (unsigned long long)b->user_size,
             (unsigned long long)(a->base + b->user_offset));
  } else if (b == NULL || b->is_free) {
    snprintf(buf, len, "device memory that is not allocated: freed, or "
                       "never allocated");
  } else {
    uint64_t begin = b->user_offset, end = b->user_offset + b->user_size;
    unsigned long long at = (unsigned long long)(a->base + begin);
    if (offset >= end)
      snprintf(buf, len,
               "%llu bytes past the end of the %llu-byte device allocation "
               "at 0x%llx",
               (unsigned long long)(offset - end),
               (unsigned long long)b->user_size, at);
    else if (offset < begin)
      snprintf(buf, len,
               "%llu bytes before the %llu-byte device allocation at 0x%llx",
               (unsigned long long)(begin - offset),
               (unsigned long long)b->user_size, at);
    else
      snprintf(buf, len,
               "offset %llu of the %llu-byte device allocation at 0x%llx",
               (unsigned long long)(offset - begin),
               (unsigned long long)b->user_size, at);
  }
  pthread_mutex_unlock(&a->lock);
}

int allocator_find_live(struct device_allocator *a, uint64_t offset,
                        uint64_t *begin_out, uint64_t *size_out) {
  pthread_mutex_lock(&a->lock);
  /* Most copies start at an allocation's first byte: one probe. */
  struct alloc_block *b = NULL;
  if (a->table_cap != 0) {
    size_t mask = a->table_cap - 1, i = slot_of(a, offset);
    while (a->table[i] != NULL && a->table[i]->user_offset != offset)
      i = (i + 1) & mask;
    b = a->table[i];
  }
  if (b == NULL)
    b = live_floor(a, offset);
  int live = b != NULL && !b->is_free && !b->quarantined &&
             offset >= b->user_offset &&
             offset - b->user_offset < b->user_size;
  if (live) {
    *begin_out = b->user_offset;
    *size_out = b->user_size;
  }
  pthread_mutex_unlock(&a->lock);
  return live ? 0 : -1;
}

/* ---- recording and replay (record.c) ---- */

int allocator_each_live(struct device_allocator *a,
                        int (*fn)(void *ctx, uint64_t offset, uint64_t size),
                        void *ctx) {
  pthread_mutex_lock(&a->lock);
  int rc = 0;
  for (struct alloc_block *b = a->first; b != NULL && rc == 0; b = b->next)
    if (!b->is_free && !b->quarantined)
      rc = fn(ctx, b->user_offset, b->user_size);
  pthread_mutex_unlock(&a->lock);
  return rc;
}

/* A free block [start, start + units) cut out of `f`, which holds it: the
 * pieces before and after stay free. Returns the cut block (not in a bin),
 * or NULL without host memory. Caller holds the lock. */
static struct alloc_block *carve(struct device_allocator *a,
                                 struct alloc_block *f, uint64_t start,
                                 uint64_t units) {
  struct alloc_block *b = calloc(1, sizeof *b);
  struct alloc_block *post = f->start + f->units > start + units
                                 ? calloc(1, sizeof *post)
                                 : b;
  if (b == NULL || post == NULL) {
    if (post != b)
      free(post);
    free(b);
    return NULL;
  }
  bin_remove(a, f);
  if (post != b) {
    *post = *f;
    post->start = start + units;
    post->units = f->start + f->units - post->start;
  }
  b->start = start;
  b->units = units;
  b->prev = f;
  b->next = post != b ? post : f->next;
  if (post != b)
    post->prev = b;
  if (b->next != NULL)
    b->next->prev = b;
  f->next = b;
  f->units = start - f->start;
  if (post != b)
    bin_insert(a, post);
  if (f->units > 0) {
    bin_insert(a, f);
  } else { /* nothing before: f goes */
    b->prev = f->prev;
    if (f->prev != NULL)
      f->prev->next = b;
    else
      a->first = b;
    free(f);
  }
  return b;
}

int allocator_alloc_at(struct device_allocator *a, uint64_t offset,
                       uint64_t size) {
  uint64_t payload = size == 0 ? 8 : (size + 7) & ~7ull;
  uint64_t need = (payload + a->unit - 1) / a->unit + (a->guard ? 1 : 0);
  uint64_t end = a->guard ? offset + payload : offset;
  uint64_t start = end / a->unit - (a->guard ? need - 1 : 0);
  pthread_mutex_lock(&a->lock);
  struct alloc_block *f = a->first;
  while (f != NULL && (f->start + f->units) <= start)
    f = f->next;
  struct alloc_block *b = NULL;
  if (end % a->unit == 0 && size <= a->capacity && f != NULL && f->is_free &&
      f->start <= start && f->start + f->units >= start + need)
    b = carve(a, f, start, need);
  if (b == NULL || b->start * a->unit + (a->guard ? (need - 1) * a->unit -
                                                        payload
                                                  : 0) != offset) {
    pthread_mutex_unlock(&a->lock);
    plugin_error("simdevice: cannot allocate %llu bytes at device address "
                 "0x%llx: that range is not free (or not aligned as the "
                 "allocator places blocks with SIMDEVICE_GUARD=%d)",
                 (unsigned long long)size,
                 (unsigned long long)(a->base + offset), a->guard);
    return -1;
  }
  b->user_offset = offset;
  b->user_size = size;
  if (table_put(a, b) != 0 ||
      (a->guard && queue_protection(a, b->start * a->unit,
                                    (need - 1) * a->unit, 1) != 0) ||
      queue_asan(a, b, offset, size, 1) != 0) {
    pthread_mutex_unlock(&a->lock); /* the block stays lost: replay only */
    plugin_error("simdevice: no host memory to track a device allocation");
    return -1;
  }
  live_insert(a, b);
  a->bytes_used += b->units * a->unit;
  pthread_mutex_unlock(&a->lock);
  return 0;
}
