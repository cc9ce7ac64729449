/*
 * mapping.c - the host -> device mapping table of one device: an AVL tree of
 * non-overlapping host intervals keyed by host begin address.
 *
 * Because the intervals never overlap, their ends are ordered like their
 * begins, so "the entry with the greatest begin below X" is the only entry
 * that can contain X, and one O(log n) descent answers every lookup.
 * Most lookups name an object by its first byte (the same variable mapped
 * again), so a hash of the begin addresses answers those first: its cost
 * does not grow with the table, while a descent through 100000 entries
 * misses the cache at every level.
 *
 * Locking: table->lock guards root, count, the hash and every entry
 * (refcounts, shadows, pins); pool_lock (below) the memory entries come from. Every public function here but
 * mapping_table_init/destroy (which create and destroy the lock) expects the
 * caller to hold it and checks so (LOCK_ASSERT_HELD); nothing here takes it.
 */
#include "mapping.h"
#include "lock_check.h"

#include <inttypes.h>
#include <sys/mman.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif
#include <stdlib.h>
#include <string.h>

void mapping_table_init(struct mapping_table *t) {
  pthread_mutex_init(&t->lock, NULL);
  t->root = NULL;
  t->last = NULL;
  t->count = 0;
  t->buckets = NULL;
  t->nbuckets = 0;
  t->tgt_lo = UINTPTR_MAX; /* no device range yet */
  t->tgt_hi = 0;
  memset(t->removed, 0, sizeof t->removed);
  t->removed_next = 0;
}

/* Entries start a cache line, so that their first line holds the fields a
 * lookup and a reference count change touch (mapping.h). They come from
 * 2 MiB blocks; from the second block on (more than 8000 entries) the
 * blocks ask for transparent huge pages: a lookup in a large table then
 * misses the cache at its entry but rarely the TLB (100000 entries of 256
 * bytes span 6400 small pages), while a small program's table stays in
 * small pages. A freed entry goes on a free list for the next; the blocks
 * stay for the process (a list from pool_blocks: a leak checker finds them
 * reachable). Under Valgrind each entry is a heap block of its own instead,
 * so that Memcheck still sees every use of a freed entry.
 * Locking: pool_lock guards the free list and the blocks, for the entries
 * of every table; it is taken to allocate or free an entry, never during a
 * lookup. */
#define ENTRY_ALIGN 64
#define ENTRY_SIZE                                                             \
  ((sizeof(struct mapping_entry) + ENTRY_ALIGN - 1) & ~(size_t)(ENTRY_ALIGN - 1))
#define POOL_BLOCK ((size_t)2 << 20)
struct pool_free {
  struct pool_free *next;
};
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool_free *pool_free_list;
static void *pool_blocks;           /* first word of a block: the next block */
static char *pool_next, *pool_end;  /* the unused rest of the newest block */

/* A new block's first entry, or NULL. Caller holds pool_lock. */
static void *pool_grow(void) {
  LOCK_ASSERT_HELD(&pool_lock);
  char *block = aligned_alloc(POOL_BLOCK, POOL_BLOCK);
  if (!block)
    return NULL;
  if (pool_blocks)
    (void)madvise(block, POOL_BLOCK, MADV_HUGEPAGE); /* only a hint */
  memcpy(block, &pool_blocks, sizeof pool_blocks);
  pool_blocks = block;
  pool_next = block + ENTRY_ALIGN; /* after the link */
  pool_end = block + POOL_BLOCK;
  return pool_next;
}

static struct mapping_entry *entry_alloc(void) {
  void *p;
  if (RUNNING_ON_VALGRIND) {
    p = aligned_alloc(ENTRY_ALIGN, ENTRY_SIZE);
  } else {
    pthread_mutex_lock(&pool_lock);
    p = pool_free_list;
    if (p)
      pool_free_list = pool_free_list->next;
    else if ((size_t)(pool_end - pool_next) >= ENTRY_SIZE || pool_grow()) {
      p = pool_next;
      pool_next += ENTRY_SIZE;
    }
    pthread_mutex_unlock(&pool_lock);
  }
  return p ? memset(p, 0, sizeof(struct mapping_entry)) : NULL;
}

static void entry_free(struct mapping_entry *e) {
  free(e->check);
  e->check = NULL;
  if (RUNNING_ON_VALGRIND) {
    free(e);
    return;
  }
  struct pool_free *f = (struct pool_free *)e;
  pthread_mutex_lock(&pool_lock);
  f->next = pool_free_list;
  pool_free_list = f;
  pthread_mutex_unlock(&pool_lock);
}

/* ---------------------------------------------------------------- hash */

static size_t bucket_of(const struct mapping_table *t, uintptr_t begin) {
  uint64_t h = (uint64_t)begin * 0x9e3779b97f4a7c15ull; /* Fibonacci hash */
  return (size_t)(h >> 32) & (t->nbuckets - 1);
}

/* A zeroed array of n buckets; from 2 MiB on, in transparent huge pages
 * (each lookup reads one bucket at random: small pages would miss the TLB
 * as well as the cache). Freed with free(). */
static struct mapping_entry **bucket_array_alloc(size_t n) {
  size_t bytes = n * sizeof(struct mapping_entry *);
  if (bytes < POOL_BLOCK)
    return calloc(n, sizeof(struct mapping_entry *));
  void *b = aligned_alloc(POOL_BLOCK, bytes);
  if (!b)
    return NULL;
  (void)madvise(b, bytes, MADV_HUGEPAGE); /* a hint */
  return memset(b, 0, bytes);
}

static struct mapping_entry *hash_find(const struct mapping_table *t,
                                       uintptr_t begin) {
  if (!t->buckets)
    return NULL;
  struct mapping_entry *e = t->buckets[bucket_of(t, begin)];
  while (e && e->hst_begin != begin)
    e = e->hash_next;
  return e;
}

/* Keep at most one entry per two buckets (a hit then visits 1.25 entries
 * on average: each extra one is a cache miss in a large table); on
 * allocation failure keep the old buckets (longer chains, same answers). */
static void hash_grow(struct mapping_table *t) {
  if (2 * t->count < t->nbuckets)
    return;
  size_t n = t->nbuckets ? t->nbuckets * 2 : 64;
  struct mapping_entry **b = bucket_array_alloc(n);
  if (!b)
    return;
  struct mapping_table grown = {.buckets = b, .nbuckets = n};
  for (size_t i = 0; i < t->nbuckets; i++)
    for (struct mapping_entry *e = t->buckets[i], *next; e; e = next) {
      next = e->hash_next;
      size_t k = bucket_of(&grown, e->hst_begin);
      e->hash_next = b[k];
      b[k] = e;
    }
  free(t->buckets);
  t->buckets = b;
  t->nbuckets = n;
}

static void hash_add(struct mapping_table *t, struct mapping_entry *e) {
  hash_grow(t);
  if (!t->buckets)
    return;
  size_t k = bucket_of(t, e->hst_begin);
  e->hash_next = t->buckets[k];
  t->buckets[k] = e;
}

static void hash_remove(struct mapping_table *t, struct mapping_entry *e) {
  if (!t->buckets)
    return;
  for (struct mapping_entry **p = &t->buckets[bucket_of(t, e->hst_begin)];
       *p; p = &(*p)->hash_next)
    if (*p == e) {
      *p = e->hash_next;
      return;
    }
}

static void free_shadows(struct mapping_entry *e) {
  struct shadow_ptr *s = e->shadows;
  while (s) {
    struct shadow_ptr *next = s->next;
    free(s);
    s = next;
  }
  e->shadows = NULL;
}

static void free_subtree(struct mapping_entry *e) {
  /* Recursion depth is the tree height (<= 1.44 log2 n). */
  if (!e)
    return;
  free_subtree(e->left);
  free_subtree(e->right);
  free_shadows(e);
  entry_free(e);
}

void mapping_table_destroy(struct mapping_table *t) {
  free_subtree(t->root);
  t->root = NULL;
  t->last = NULL;
  t->count = 0;
  free(t->buckets);
  t->buckets = NULL;
  t->nbuckets = 0;
  pthread_mutex_destroy(&t->lock);
}

/* ---------------------------------------------------------------- AVL */

/* The entry with the greatest host begin under root, or NULL. */
static struct mapping_entry *rightmost(struct mapping_entry *root) {
  while (root && root->right)
    root = root->right;
  return root;
}

static int height_of(const struct mapping_entry *e) {
  return e ? e->height : 0;
}

static void update_height(struct mapping_entry *e) {
  int l = height_of(e->left), r = height_of(e->right);
  e->height = 1 + (l > r ? l : r);
}

static struct mapping_entry *rotate_right(struct mapping_entry *e) {
  struct mapping_entry *l = e->left;
  e->left = l->right;
  l->right = e;
  update_height(e);
  update_height(l);
  return l;
}

static struct mapping_entry *rotate_left(struct mapping_entry *e) {
  struct mapping_entry *r = e->right;
  e->right = r->left;
  r->left = e;
  update_height(e);
  update_height(r);
  return r;
}

static struct mapping_entry *rebalance(struct mapping_entry *e) {
  update_height(e);
  int balance = height_of(e->left) - height_of(e->right);
  if (balance > 1) {
    if (height_of(e->left->left) < height_of(e->left->right))
      e->left = rotate_left(e->left);
    return rotate_right(e);
  }
  if (balance < -1) {
    if (height_of(e->right->right) < height_of(e->right->left))
      e->right = rotate_right(e->right);
    return rotate_left(e);
  }
  return e;
}

static struct mapping_entry *insert_node(struct mapping_entry *root,
                                         struct mapping_entry *n) {
  if (!root)
    return n;
  if (n->hst_begin < root->hst_begin)
    root->left = insert_node(root->left, n);
  else
    root->right = insert_node(root->right, n);
  return rebalance(root);
}

/* Detach the minimum of a subtree; *min receives it. */
static struct mapping_entry *detach_min(struct mapping_entry *root,
                                        struct mapping_entry **min) {
  if (!root->left) {
    *min = root;
    return root->right;
  }
  root->left = detach_min(root->left, min);
  return rebalance(root);
}

/* Remove node `victim` (found by its unique begin address). */
static struct mapping_entry *remove_node(struct mapping_entry *root,
                                         struct mapping_entry *victim,
                                         bool *found) {
  if (!root)
    return NULL;
  if (root != victim) {
    if (victim->hst_begin < root->hst_begin)
      root->left = remove_node(root->left, victim, found);
    else
      root->right = remove_node(root->right, victim, found);
    return rebalance(root);
  }
  *found = true;
  if (!root->left)
    return root->right;
  if (!root->right)
    return root->left;
  struct mapping_entry *successor = NULL;
  struct mapping_entry *right = detach_min(root->right, &successor);
  successor->right = right;
  successor->left = root->left;
  return rebalance(successor);
}

/* The entry with the greatest begin <= addr (strict: < addr), or NULL. */
static struct mapping_entry *floor_entry(struct mapping_table *t,
                                         uintptr_t addr, bool strict) {
  struct mapping_entry *cur = t->root, *best = NULL;
  while (cur) {
    bool go_right = strict ? cur->hst_begin < addr : cur->hst_begin <= addr;
    if (go_right) {
      best = cur;
      cur = cur->right;
    } else {
      cur = cur->left;
    }
  }
  return best;
}

/* Does entry e hold address addr? A zero-size entry holds its begin. */
static bool entry_holds(const struct mapping_entry *e, uintptr_t addr) {
  if (e->hst_begin == e->hst_end)
    return addr == e->hst_begin;
  return addr >= e->hst_begin && addr < e->hst_end;
}

/* ------------------------------------------------------------ lookups */

enum mapping_overlap mapping_lookup(struct mapping_table *t, uintptr_t begin,
                                    uint64_t size,
                                    struct mapping_entry **entry) {
  LOCK_ASSERT_HELD(&t->lock);
  *entry = NULL;
  uintptr_t end = begin + size;
  if (end < begin) /* wraps around: clamp to the top of the address space */
    end = UINTPTR_MAX;
  /* An entry starting at begin is the one the descent would find. Else one
   * descent finds both the last entry starting at or before begin and the
   * first one after it (the only candidate for an overlap). */
  struct mapping_entry *at = hash_find(t, begin), *next = NULL;
  if (!at && t->last && t->last->hst_begin <= begin)
    at = t->last; /* and nothing starts after it */
  else if (!at) {
    for (struct mapping_entry *cur = t->root; cur;) {
      if (cur->hst_begin <= begin) {
        at = cur;
        cur = cur->right;
      } else {
        next = cur;
        cur = cur->left;
      }
    }
  }
  if (at && entry_holds(at, begin)) {
    *entry = at;
    if (size == 0 || end <= at->hst_end)
      return MAPPING_CONTAINED;
    return MAPPING_EXTENDS;
  }
  if (size == 0 || !next || next->hst_begin >= end)
    return MAPPING_ABSENT;
  /* An entry starts inside (begin, end): name the last one that does. */
  *entry = floor_entry(t, end, true);
  return MAPPING_EXTENDS;
}

struct mapping_entry *mapping_find(struct mapping_table *t, uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  struct mapping_entry *at = hash_find(t, addr);
  if (at)
    return at;
  at = floor_entry(t, addr, false);
  return at && entry_holds(at, addr) ? at : NULL;
}

/* The entry with the least begin > addr, or NULL. */
static struct mapping_entry *ceiling_entry(struct mapping_table *t,
                                           uintptr_t addr) {
  struct mapping_entry *cur = t->root, *best = NULL;
  while (cur) {
    if (cur->hst_begin > addr) {
      best = cur;
      cur = cur->left;
    } else {
      cur = cur->right;
    }
  }
  return best;
}

struct mapping_entry *mapping_find_zero_size(struct mapping_table *t,
                                             uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  struct mapping_entry *e = mapping_find(t, addr);
  if (e)
    return e;
  e = ceiling_entry(t, addr);
  return e && e->hst_base <= addr ? e : NULL;
}

struct find_device_arg {
  uintptr_t addr;
  struct mapping_entry *found;
};

static int match_device_addr(struct mapping_entry *e, void *arg) {
  struct find_device_arg *fa = arg;
  uintptr_t size = e->hst_end - e->hst_begin;
  if (fa->addr >= e->tgt_begin && (fa->addr < e->tgt_begin + size ||
                                   (size == 0 && fa->addr == e->tgt_begin))) {
    fa->found = e;
    return 1;
  }
  return 0;
}

struct mapping_entry *mapping_find_device(struct mapping_table *t,
                                          uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  if (addr < t->tgt_lo || addr > t->tgt_hi)
    return NULL;
  struct find_device_arg fa = {.addr = addr, .found = NULL};
  mapping_foreach(t, match_device_addr, &fa);
  return fa.found;
}

/* ------------------------------------------------------ insert/remove */

struct mapping_entry *mapping_insert(struct mapping_table *t,
                                     uintptr_t hst_begin, uintptr_t hst_end,
                                     uintptr_t tgt_begin, const char *name) {
  LOCK_ASSERT_HELD(&t->lock);
  if (hst_end < hst_begin) {
    report_error_set("mapping table: host range 0x%" PRIxPTR "..0x%" PRIxPTR
                     " ends before it begins",
                     hst_begin, hst_end);
    return NULL;
  }
  struct mapping_entry *clash = NULL;
  if (mapping_lookup(t, hst_begin, hst_end - hst_begin, &clash) !=
      MAPPING_ABSENT) {
    report_error_set("mapping table: new entry host 0x%" PRIxPTR "..0x%" PRIxPTR
                     " overlaps mapped host 0x%" PRIxPTR "..0x%" PRIxPTR,
                     hst_begin, hst_end, clash->hst_begin, clash->hst_end);
    return NULL;
  }
  struct mapping_entry *e = entry_alloc();
  if (!e) {
    report_error_set("mapping table: out of host memory for the entry of "
                     "host 0x%" PRIxPTR "..0x%" PRIxPTR,
                     hst_begin, hst_end);
    return NULL;
  }
  e->hst_begin = hst_begin;
  e->hst_end = hst_end;
  e->tgt_begin = tgt_begin;
  e->hst_base = hst_begin;
  if (tgt_begin < t->tgt_lo)
    t->tgt_lo = tgt_begin;
  if (tgt_begin + (hst_end - hst_begin) > t->tgt_hi)
    t->tgt_hi = tgt_begin + (hst_end - hst_begin);
  e->height = 1;
  if (name) { /* entry_alloc zeroed the rest */
    size_t n = strnlen(name, sizeof e->name - 1);
    memcpy(e->name, name, n);
  }
  t->root = insert_node(t->root, e);
  if (!t->last || hst_begin > t->last->hst_begin)
    t->last = e;
  t->count++;
  hash_add(t, e);
  return e;
}

bool mapping_remove(struct mapping_table *t, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&t->lock);
  bool found = false;
  t->root = remove_node(t->root, e, &found);
  if (!found)
    return false; /* not ours: leave it alone rather than free a stranger */
  if (t->last == e)
    t->last = rightmost(t->root);
  hash_remove(t, e);
  t->count--;
  struct mapping_removed *r =
      &t->removed[t->removed_next++ % MAPPING_REMOVED_KEPT];
  r->hst_begin = e->hst_begin;
  r->tgt_begin = e->tgt_begin;
  r->tgt_end = e->tgt_begin + (e->hst_end - e->hst_begin);
  memcpy(r->name, e->name, sizeof r->name);
  if (e->pins > 0) {
    e->unlinked = true;
    e->left = e->right = e->hash_next = NULL;
    return false;
  }
  free_shadows(e);
  entry_free(e);
  return true;
}

const struct mapping_removed *mapping_find_removed(struct mapping_table *t,
                                                   uintptr_t addr) {
  LOCK_ASSERT_HELD(&t->lock);
  for (unsigned k = 1; k <= MAPPING_REMOVED_KEPT; k++) {
    const struct mapping_removed *r =
        &t->removed[(t->removed_next - k) % MAPPING_REMOVED_KEPT];
    if (r->tgt_end > r->tgt_begin && addr >= r->tgt_begin && addr < r->tgt_end)
      return r;
  }
  return NULL;
}

void mapping_pin(struct mapping_table *t, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&t->lock);
  e->pins++;
}

bool mapping_unpin(struct mapping_table *t, struct mapping_entry *e) {
  LOCK_ASSERT_HELD(&t->lock);
  if (--e->pins > 0 || !e->unlinked)
    return false;
  free_shadows(e);
  entry_free(e);
  return true;
}

/* ------------------------------------------------------- traversal */

static int visit(struct mapping_entry *e,
                 int (*fn)(struct mapping_entry *, void *), void *arg) {
  if (!e)
    return 0;
  /* fn may not remove entries; read the links before calling it anyway. */
  struct mapping_entry *right = e->right;
  if (visit(e->left, fn, arg))
    return 1;
  if (fn(e, arg))
    return 1;
  return visit(right, fn, arg);
}

void mapping_foreach(struct mapping_table *t,
                     int (*fn)(struct mapping_entry *, void *), void *arg) {
  LOCK_ASSERT_HELD(&t->lock);
  visit(t->root, fn, arg);
}

static void format_count(uint64_t n, char *buf, size_t len) {
  if (n == MAPPING_REFCOUNT_INFINITE)
    snprintf(buf, len, "inf");
  else
    snprintf(buf, len, "%" PRIu64, n);
}

static int dump_one(struct mapping_entry *e, void *arg) {
  FILE *out = arg;
  char dyn[24], hold[24];
  format_count(e->dyn_refcount, dyn, sizeof dyn);
  format_count(e->hold_refcount, hold, sizeof hold);
  fprintf(out,
          "  host 0x%" PRIxPTR "..0x%" PRIxPTR " (%" PRIuPTR
          " bytes) -> device 0x%" PRIxPTR ", dyn=%s hold=%s%s %s\n",
          e->hst_begin, e->hst_end, e->hst_end - e->hst_begin, e->tgt_begin,
          dyn, hold, e->owned ? "" : " (not owned)",
          e->name[0] ? e->name : "unknown");
  return 0;
}

void mapping_dump(struct mapping_table *t, FILE *out, const char *title) {
  LOCK_ASSERT_HELD(&t->lock);
  fprintf(out, "%s: %zu entr%s\n", title ? title : "mapping table", t->count,
          t->count == 1 ? "y" : "ies");
  mapping_foreach(t, dump_one, out);
}

void mapping_keep_for_report(struct mapping_table *t, int device_id) {
  LOCK_ASSERT_HELD(&t->lock);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return; /* best effort: the report then prints the live table */
  char title[96];
  snprintf(title, sizeof title,
           "mapping table of device %d when the construct failed", device_id);
  mapping_dump(t, f, title);
  if (fclose(f) == 0)
    report_failure_table_keep(text);
  else
    free(text);
}

/* ------------------------------------------------------- consistency */

struct check_state {
  const struct mapping_table *t;
  size_t visited;
  uintptr_t prev_end;
  const char *problem;
};

static int check_one(struct mapping_entry *e, void *arg) {
  struct check_state *cs = arg;
  cs->visited++;
  if (cs->visited > 1 && e->hst_begin < cs->prev_end)
    cs->problem = "tree entries overlap or are out of order";
  else if (cs->t->buckets && hash_find(cs->t, e->hst_begin) != e)
    cs->problem = "an entry is not in the chain of its bucket";
  cs->prev_end = e->hst_end;
  return cs->problem != NULL;
}

int mapping_check(struct mapping_table *t) {
  LOCK_ASSERT_HELD(&t->lock);
  struct check_state cs = {.t = t};
  mapping_foreach(t, check_one, &cs);
  if (!cs.problem && cs.visited != t->count)
    cs.problem = "the tree does not hold `count` entries";
  if (!cs.problem && t->last != rightmost(t->root))
    cs.problem = "`last` is not the entry with the greatest host begin";
  if (!cs.problem && t->buckets) {
    size_t chained = 0;
    for (size_t k = 0; k < t->nbuckets && !cs.problem; k++)
      for (const struct mapping_entry *e = t->buckets[k]; e; e = e->hash_next) {
        chained++;
        if (bucket_of(t, e->hst_begin) != k || chained > t->count) {
          cs.problem = "a hash chain holds a stranger or loops";
          break;
        }
      }
    if (!cs.problem && chained != t->count)
      cs.problem = "the hash does not hold `count` entries";
  }
  if (cs.problem) {
    report_error_set("mapping table: %s", cs.problem);
    return -1;
  }
  return 0;
}
